package io.commitlane.storage;

import java.nio.charset.StandardCharsets;

/** What a store name may be: it becomes a RocksDB column-family name and is written into log records. */
final class StoreNames {
  static final int MAX_BYTES = 255;
  /** Names with this prefix belong to commitlane itself (see {@link Store#INTERNAL}). */
  static final String RESERVED_PREFIX = "__commitlane";

  private StoreNames() {}

  static String requireValid(String name) {
    if (name == null) {
      throw new InvalidStoreNameException(null, "a store needs a name");
    }
    int bytes = name.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > MAX_BYTES) {
      throw new InvalidStoreNameException(name, "must be 1.." + MAX_BYTES + " UTF-8 bytes, is " + bytes);
    }
    if (name.startsWith(RESERVED_PREFIX)) {
      throw new InvalidStoreNameException(name, "names starting with '" + RESERVED_PREFIX + "' are reserved for commitlane itself");
    }
    for (int i = 0; i < name.length(); i++) {
      if (Character.isISOControl(name.charAt(i))) {
        throw new InvalidStoreNameException(name, "must not contain control characters (at index " + i + ")");
      }
    }
    return name;
  }

  static String requireDroppable(String name) {
    requireValid(name);
    if (Store.DEFAULT.equals(name)) {
      throw new InvalidStoreNameException(name, "the default store cannot be dropped: every database has it");
    }
    return name;
  }
}
