package io.cairn.router.resp;

import java.util.concurrent.CompletableFuture;

/**
 * Where ACL users are kept so that every router enforces the same ones (issue 26): the server
 * module keeps them in the coordinator group; {@link #LOCAL} keeps them in this process only
 * (an embedded router, tests).
 */
@FunctionalInterface
public interface AclStore {
    /** Keeps nothing beyond this process: the change is applied locally only. */
    AclStore LOCAL = (name, rules) -> CompletableFuture.completedFuture(null);

    /**
     * Stores user {@code name} as its rule text ({@link RespAuth#describe}), or deletes it when
     * {@code rules} is null. Completes once the change is durable; may complete exceptionally
     * (a CairnException says why, e.g. no coordinator leader).
     */
    CompletableFuture<Void> save(String name, String rules);
}
