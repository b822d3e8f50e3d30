/**
 * INTERNAL API. Serving {@link io.commitlane.actors.DatabaseProtocol} against an open database.
 * Entry point: {@link io.commitlane.actors.internal.protocol.RequestHandler}, run on the thread of
 * the actor that received the request (a local {@link io.commitlane.actors.DatabaseActor}, a
 * handle's protocol actor, or the cluster module's sharded entity), so they answer alike.
 *
 * <p>Writes are admitted into the pipeline and answered from the commit's outcome; {@link
 * io.commitlane.actors.internal.protocol.ReadRequests} serves point reads and scans ({@link
 * io.commitlane.actors.internal.protocol.RangePages}, {@link
 * io.commitlane.actors.internal.protocol.ScanContinuation}); {@link
 * io.commitlane.actors.internal.protocol.RequestLedger} remembers applied request ids; {@link
 * io.commitlane.actors.internal.protocol.RequestNames} checks store and log names; {@link
 * io.commitlane.actors.internal.protocol.Refusals} maps a failure to its refusal family; {@link
 * io.commitlane.actors.internal.protocol.ReplyLimit} bounds a reply to its recipient's frame;
 * {@link io.commitlane.actors.internal.protocol.DeadLetterReplies} answers requests that reached a
 * stopped database.
 */
package io.commitlane.actors.internal.protocol;
