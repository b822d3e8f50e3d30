package io.commitlane.storage;

/**
 * One entry a scan returned. {@code value} is null when the scan was {@link KeyRange#keysOnly()}.
 * The arrays belong to the caller: the scan made fresh copies.
 */
public record KeyValue(byte[] key, byte[] value) {}
