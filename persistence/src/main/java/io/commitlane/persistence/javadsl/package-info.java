/** The read journal and durable-state store, Java API (Pekko's javadsl query and state interfaces). */
package io.commitlane.persistence.javadsl;
