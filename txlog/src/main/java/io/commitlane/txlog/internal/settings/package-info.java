/**
 * INTERNAL API. The definitions of a transaction log's settings: {@link
 * io.commitlane.txlog.internal.settings.LogKeys} lists each one as a {@link
 * io.commitlane.txlog.internal.settings.LogKey} (config key, Java name, range, doc line), which
 * {@code LogSettings}' constructor checks through and the actors module's config reader reads
 * {@code commitlane.txlog} through.
 */
package io.commitlane.txlog.internal.settings;
