/** The read journal and durable-state store, Scala API: the Java ones seen through Pekko's scaladsl interfaces. */
package io.commitlane.persistence.scaladsl;
