package io.commitlane.examples.layeringfixture;

/** Stands in for a class of the examples module (not on this module's class path) in LayeringTest's fixtures. */
public final class AnExample {}
