/**
 * INTERNAL API. Opening and closing a database path in an actor system. Entry point: {@link
 * io.commitlane.actors.internal.lifecycle.OpenDatabases}, the registry {@link
 * io.commitlane.actors.Commitlane} opens and closes through: it keeps one {@link
 * io.commitlane.actors.internal.lifecycle.OpenDatabase} per path (counted by handle) and spawns
 * its {@link io.commitlane.actors.internal.lifecycle.DatabaseSupervisor}.
 *
 * <p>The supervisor opens the storage handle and replays the transaction logs on the lifecycle
 * dispatcher, then serves: it starts commit executors when the queue asks, restarts a failed one,
 * and on close drains every handle's admitted commits, stops the log actor and releases the
 * database. {@link io.commitlane.actors.internal.lifecycle.PathOwners} keeps one actor system per
 * path in a process; {@link io.commitlane.actors.internal.lifecycle.StoreMaintenance} runs
 * compactions and clears on threads of their own.
 */
package io.commitlane.actors.internal.lifecycle;
