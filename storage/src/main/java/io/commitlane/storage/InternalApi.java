package io.commitlane.storage;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a type or member that is public only so that commitlane's other modules (the actor
 * pipeline, the transaction-log wiring, the testkit) can reach it: it is not part of the API, and
 * it may change or go without notice. The storage module's counterpart of Pekko's {@code
 * org.apache.pekko.annotation.InternalApi}, which the modules built on Pekko use.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface InternalApi {}
