package io.commitlane.cluster;

/**
 * Marks the messages that cross nodes: {@code reference.conf} binds this interface to Pekko's
 * Jackson CBOR serializer ({@code jackson-cbor}). Every public message of {@link ShardedDatabase}
 * and every value inside one implements it; local-only internal messages do not.
 */
public interface CborSerializable {}
