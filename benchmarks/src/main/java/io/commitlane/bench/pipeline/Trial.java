package io.commitlane.bench.pipeline;

import java.nio.file.Path;

/** One row, measured once per round on a fresh database directory (which it deletes when done). */
public record Trial<S>(Row row, Body<S> body) {
  interface Body<S> {
    S run(Path dir) throws Exception;
  }

  S run(Path dir) throws Exception {
    return body.run(dir);
  }
}
