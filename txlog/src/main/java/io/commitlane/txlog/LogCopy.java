package io.commitlane.txlog;

import java.nio.file.Path;

/**
 * A copy of a log made by {@link TransactionLog#copyTo}: where it is, the flushed position it
 * carries (replay of the copy starts there), the end of what it holds, and the bytes copied.
 */
public record LogCopy(Path directory, long flushedPosition, long endPosition, long bytes) {}
