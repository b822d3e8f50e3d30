package io.commitlane.storage.layeringfixture;

import io.commitlane.annotation.InternalApi;

/** Machinery marked @InternalApi outside an internal package, so PublicApiTest can show its count sees it. */
@InternalApi
public final class StorageSeam {}
