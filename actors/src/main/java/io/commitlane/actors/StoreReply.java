package io.commitlane.actors;

/**
 * What an actor that sent {@link DatabaseActor.CreateStore} or {@link DatabaseActor.DropStore}
 * gets back: exactly one reply per request.
 */
public sealed interface StoreReply {
  /** The store name the reply is for. */
  String name();

  /** The store exists and is live (created now, or it already was); {@code generation} tells generations apart. */
  record Created(String name, int generation) implements StoreReply {}

  /** The store is dropped physically: no commit names it any more and its column family is gone. */
  record Dropped(String name) implements StoreReply {}

  /**
   * Nothing was done, or the drop could not finish. The cause is typed: {@link
   * io.commitlane.storage.InvalidStoreNameException} (a bad name, or {@code default} given to a
   * drop), {@link io.commitlane.storage.UnknownStoreException}, {@link
   * io.commitlane.storage.DatabaseClosedException}, or a storage failure.
   */
  record Failed(String name, Throwable cause) implements StoreReply {}
}
