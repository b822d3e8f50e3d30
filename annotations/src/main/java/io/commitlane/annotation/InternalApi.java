package io.commitlane.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * INTERNAL API: marks a type or member that is public only so that commitlane's other modules can
 * reach it (Java has no friend modules on the class path). It is not part of the API and may
 * change or go without notice. The one marker every commitlane module uses; types in packages
 * named {@code internal} are internal without it. What is public, type by type, is listed in
 * docs/api.md, and a test keeps that list and the code in step.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface InternalApi {}
