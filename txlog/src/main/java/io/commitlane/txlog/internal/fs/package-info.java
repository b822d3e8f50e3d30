/**
 * INTERNAL API. All file I/O of a transaction log goes through {@link
 * io.commitlane.txlog.internal.fs.LogFileSystem} (the entry point; {@link
 * io.commitlane.txlog.internal.fs.JdkFileSystem} by default), so tests can inject the faults a log
 * must survive with {@link io.commitlane.txlog.internal.fs.FaultInjectingFileSystem}.
 */
package io.commitlane.txlog.internal.fs;
