package io.commitlane.bench.report;

import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.Map;

/** The fields every long command's JSON report opens with: what ran, when, where, whether it finished, with what. */
public final class RunHeader {
  private RunHeader() {}

  /** A new ordered map holding the header; the report adds its own fields after it. */
  public static Map<String, Object> json(String command, ZonedDateTime date, MachineInfo machine, boolean partial,
      Map<String, Object> settings) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", command);
    m.put("date", date.toString());
    m.put("machine", machine.toJson());
    m.put("partial", partial);
    m.put("settings", settings);
    return m;
  }
}
