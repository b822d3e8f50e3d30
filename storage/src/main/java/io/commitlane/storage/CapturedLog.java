package io.commitlane.storage;

/**
 * One transaction log as a checkpoint or backup holds it: its name, the flushed position its copy
 * carries (replay of the copy starts there), the end of what was copied, and the bytes copied
 * (sealed segments an earlier backup holds are hard-linked into a new one, not copied or counted).
 * Positions are the log's (segment number in the high 32 bits, offset in the low 32).
 */
public record CapturedLog(String name, long flushedPosition, long endPosition, long bytes) {}
