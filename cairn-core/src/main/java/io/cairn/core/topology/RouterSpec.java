package io.cairn.core.topology;

/** A router process: RESP port for clients and admin HTTP port. */
public record RouterSpec(String id, String host, int respPort, int adminPort) {}
