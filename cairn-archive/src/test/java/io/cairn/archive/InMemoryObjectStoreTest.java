package io.cairn.archive;

/** The contract on the simulator's in-memory store. */
class InMemoryObjectStoreTest extends ObjectStoreContract {
    private static final InMemoryObjectStore STORE = new InMemoryObjectStore();

    @Override
    protected ObjectStore store() {
        return STORE;
    }
}
