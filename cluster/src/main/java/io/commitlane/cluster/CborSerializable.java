package io.commitlane.cluster;

/**
 * Marks this module's own messages that cross nodes (the sharded database's {@link
 * ShardedDatabase.Stop}): {@code reference.conf} binds this interface, and the database protocol's
 * {@link io.commitlane.actors.ProtocolMessage}, to Pekko's Jackson CBOR serializer ({@code
 * jackson-cbor}). Local-only internal messages implement neither.
 */
public interface CborSerializable {}
