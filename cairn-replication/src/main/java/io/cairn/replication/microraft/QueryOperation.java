package io.cairn.replication.microraft;

/** A read handed to MicroRaft's query path; it never enters the log or the wire. */
record QueryOperation(byte[] query) {
}
