package io.commitlane.bench.peers;

import java.nio.ByteBuffer;

/** One worker's direct buffer for values, reallocated only when the size changes (LMDB reads values from direct memory). */
final class ReusableDirectBuffer {
  private ByteBuffer buffer = ByteBuffer.allocateDirect(0);

  /** {@code bytes} copied into the buffer, ready to read. */
  ByteBuffer of(byte[] bytes) {
    if (buffer.capacity() != bytes.length) {
      buffer = ByteBuffer.allocateDirect(bytes.length);
    }
    buffer.clear();
    buffer.put(bytes).flip();
    return buffer;
  }
}
