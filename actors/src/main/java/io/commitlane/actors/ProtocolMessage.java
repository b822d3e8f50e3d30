package io.commitlane.actors;

/**
 * Marks the messages of the database protocol ({@link DatabaseProtocol}'s requests and replies,
 * and the {@link ChangeRecord}s a change feed streams) for a serializer. The cluster module binds
 * it to Pekko's Jackson CBOR serializer in its {@code reference.conf}; a system that sends these
 * messages between nodes without the cluster module binds it itself:
 * {@code pekko.actor.serialization-bindings { "io.commitlane.actors.ProtocolMessage" = jackson-cbor }}.
 */
public interface ProtocolMessage {}
