package io.commitlane.persistence.internal.store;

import io.commitlane.annotation.InternalApi;
import io.commitlane.persistence.internal.query.WriteSignals;
import io.commitlane.storage.KeyValue;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.apache.pekko.Done;

/**
 * INTERNAL API. A {@link PluginStore} that forwards every call to another: a subclass overrides only what it changes
 * or watches (tests count barriers, or run the store's tasks another way).
 */
@InternalApi
public class ForwardingPluginStore implements PluginStore {
  private final PluginStore store;

  public ForwardingPluginStore(PluginStore store) {
    this.store = store;
  }

  @Override
  public byte[] get(byte[] key) {
    return store.get(key);
  }

  @Override
  public List<byte[]> multiGet(List<byte[]> keys) {
    return store.multiGet(keys);
  }

  @Override
  public List<KeyValue> scan(byte[] from, byte[] to, boolean reverse, int limit) {
    return store.scan(from, to, reverse, limit);
  }

  @Override
  public CompletionStage<Void> write(StoreWrite write) {
    return store.write(write);
  }

  @Override
  public Positions positions() {
    return store.positions();
  }

  @Override
  public WriteSignals signals() {
    return store.signals();
  }

  @Override
  public Executor executor() {
    return store.executor();
  }

  @Override
  public long maxWriteBytes() {
    return store.maxWriteBytes();
  }

  @Override
  public String largerWrites() {
    return store.largerWrites();
  }

  @Override
  public String describe() {
    return store.describe();
  }

  @Override
  public CompletionStage<Void> readBarrier() {
    return store.readBarrier();
  }

  @Override
  public CompletionStage<Done> close() {
    return store.close();
  }
}
