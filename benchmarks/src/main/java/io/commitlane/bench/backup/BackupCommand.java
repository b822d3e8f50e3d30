package io.commitlane.bench.backup;

import io.commitlane.bench.Main;
import io.commitlane.bench.cli.Checks;
import io.commitlane.storage.BackupCorruptException;
import io.commitlane.storage.BackupInfo;
import io.commitlane.storage.BackupProgress;
import io.commitlane.storage.BackupStore;
import io.commitlane.storage.CapturedLog;
import io.commitlane.storage.CommitlaneException;
import io.commitlane.storage.Database;
import io.commitlane.storage.DatabaseOptions;
import io.commitlane.storage.NotADatabaseException;
import io.commitlane.storage.RestoreOptions;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./commitlane backup create|list|verify|restore|delete|purge}: backups of a database that
 * no process has open (to back up a live one, call {@code CommitlaneDatabase.backup} in that
 * process). Exit code 0: done; 1: failed, refused or damage found; 2: bad arguments.
 */
@Command(name = "backup", mixinStandardHelpOptions = true,
    description = "Back up, list, verify, restore, delete and purge backups of a database (RocksDB's BackupEngine,"
        + " incremental, with the transaction logs and a SHA-256 manifest per backup). The database must not be open"
        + " in another process; a live one backs itself up with CommitlaneDatabase.backup. Exit code 0: done,"
        + " 1: failed, refused or damage found, 2: bad arguments.",
    subcommands = {BackupCommand.Create.class, BackupCommand.ListBackups.class, BackupCommand.Verify.class,
        BackupCommand.Restore.class, BackupCommand.Delete.class, BackupCommand.Purge.class})
public final class BackupCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Main.USAGE;
  }

  /** Runs one operation: typed failures print their message and exit 1; a directory that holds no database exits 2. */
  abstract static class Operation implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--backups", required = true, description = "The backup directory (one per database)")
    Path backups;

    abstract int run(BackupStore store, PrintWriter out);

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      try {
        return run(BackupStore.at(backups), spec.commandLine().getOut());
      } catch (NotADatabaseException e) {
        err.println("commitlane backup " + spec.name() + ": " + e.getMessage());
        return Main.USAGE;
      } catch (BackupCorruptException e) {
        err.println("commitlane backup " + spec.name() + ": DAMAGED: " + e.getMessage());
        return Main.FAILED;
      } catch (CommitlaneException e) {
        err.println("commitlane backup " + spec.name() + ": " + e.getMessage());
        return Main.FAILED;
      }
    }

    static BackupProgress progress(PrintWriter err) {
      String[] last = {""};
      return (phase, done, total) -> {
        if (!phase.equals(last[0])) {
          last[0] = phase;
          err.println("  " + phase + " ...");
        }
      };
    }

    static void print(PrintWriter out, BackupInfo b) {
      if (b.sequence() < 0) { // nothing but its id and state is known
        out.printf("backup %d  %s  %s%n", b.id(), b.state(), b.problem());
        return;
      }
      out.printf("backup %d  %s  %s  sequence %d  %d bytes  format %d  %s%n", b.id(), b.complete() ? "complete" : b.state(),
          b.createdAt(), b.sequence(), b.sizeBytes(), b.formatVersion(), b.sourcePath());
      if (!b.complete()) {
        out.printf("  %s%n", b.problem());
      }
      for (CapturedLog l : b.logs()) {
        out.printf("  log %s  flushed %d  end %d  %d bytes%n", l.name(), l.flushedPosition(), l.endPosition(), l.bytes());
      }
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Back up the database at --db into --backups.")
  static final class Create extends Operation {
    @Option(names = "--db", required = true, description = "The database directory (not open in another process)")
    Path db;

    @Override
    int run(BackupStore store, PrintWriter out) {
      if (!Files.isRegularFile(db.resolve("CURRENT"))) {
        throw new NotADatabaseException("back up", db, "it has no RocksDB CURRENT file");
      }
      try (Database database = Database.open(db, DatabaseOptions.defaults().withCreateIfMissing(false))) {
        print(out, store.create(database, progress(spec.commandLine().getErr()), () -> false));
      }
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List the backups in --backups, oldest first: complete, INCOMPLETE (interrupted; the next create or"
          + " purge removes it) or DAMAGED (a part of it is missing or unreadable; it stays until deleted).")
  static final class ListBackups extends Operation {
    @Override
    int run(BackupStore store, PrintWriter out) {
      List<BackupInfo> all = store.list();
      all.forEach(b -> print(out, b));
      if (all.isEmpty()) {
        out.println("no backups in " + store.directory());
      }
      return 0;
    }
  }

  @Command(name = "verify", mixinStandardHelpOptions = true,
      description = "Check every file of a backup (or of all, damaged ones included, without --id) against its SHA-256, and"
          + " that it holds no file its manifest does not list; --deep also restores it into a temporary directory and reads"
          + " every key. Exit code 1 names the first damaged file of each damaged backup.")
  static final class Verify extends Operation {
    @Option(names = "--id", description = "The backup to verify (default: every backup)")
    Integer id;

    @Option(names = "--deep", description = "Also restore into a temporary directory and read everything")
    boolean deep;

    @Override
    int run(BackupStore store, PrintWriter out) {
      List<Integer> ids = id != null ? List.of(id) : store.list().stream().map(BackupInfo::id).toList();
      int failed = 0;
      for (int i : ids) {
        try {
          store.verify(i, deep, progress(spec.commandLine().getErr()));
          out.println("backup " + i + ": ok");
        } catch (BackupCorruptException e) {
          out.println("backup " + i + ": DAMAGED: " + e.getMessage());
          failed++;
        }
      }
      return failed == 0 ? 0 : Main.FAILED;
    }
  }

  @Command(name = "restore", mixinStandardHelpOptions = true,
      description = "Restore backup --id into --target (missing or empty unless --replace), after verifying it.")
  static final class Restore extends Operation {
    @Option(names = "--id", required = true, description = "The backup to restore")
    int id;

    @Option(names = "--target", required = true, description = "Where the database goes")
    Path target;

    @Option(names = "--replace", description = "Replace the database at --target (only its own files are deleted)")
    boolean replace;

    @Option(names = "--allow-other-database", description = "Allow replacing a database the backup was not taken of")
    boolean allowOther;

    @Override
    int run(BackupStore store, PrintWriter out) {
      RestoreOptions options = new RestoreOptions(replace, allowOther);
      store.restore(id, target, options, progress(spec.commandLine().getErr()));
      out.println("restored backup " + id + " into " + target.toAbsolutePath().normalize());
      return 0;
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete backup --id (files other backups share stay).")
  static final class Delete extends Operation {
    @Option(names = "--id", required = true, description = "The backup to delete")
    int id;

    @Override
    int run(BackupStore store, PrintWriter out) {
      store.delete(id);
      out.println("deleted backup " + id);
      return 0;
    }
  }

  @Command(name = "purge", mixinStandardHelpOptions = true,
      description = "Delete every backup but the newest --keep complete ones, and every incomplete one (damaged ones stay:"
          + " delete them with delete --id).")
  static final class Purge extends Operation {
    @Option(names = "--keep", required = true, description = "How many of the newest backups to keep (>= 0)")
    int keep;

    @Override
    int run(BackupStore store, PrintWriter out) {
      if (keep < 0) {
        throw new Checks.UsageException("--keep must be >= 0: " + keep);
      }
      out.println("deleted backups " + store.purge(keep));
      return 0;
    }
  }
}
