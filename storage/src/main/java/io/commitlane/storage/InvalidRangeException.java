package io.commitlane.storage;

/**
 * A {@link KeyRange} was asked for something no scan can do: a lower bound above its upper bound,
 * or a limit that is zero or negative. Thrown when the range is built, before any read; the
 * message names the bounds or the limit. Fix the arguments; nothing was read.
 */
public final class InvalidRangeException extends IllegalArgumentException {
  public InvalidRangeException(String message) {
    super(message);
  }
}
