package io.cairn.server.chaos;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The chaos test's clients: a few threads, each with its own Jedis connection to the router and
 * its own seeded {@link Random}, sending SET, GET, DEL, INCR and MSET (on a hash tag, so one
 * bucket) on a small shared set of keys, and recording every operation with its start, end and
 * outcome ({@link Op}). Keys are shared between threads on purpose: reads then race with other
 * clients' writes, which is what the {@link HistoryChecker} judges. Every write writes a value no
 * other write writes ({@code t<thread>-<n>}).
 *
 * <p>Error replies: CLUSTERDOWN and TRYAGAIN say the command was not applied (docs/operations.md);
 * every other error, a lost connection and a client timeout leave the outcome unknown.
 */
public final class Workload {
    /** Keys by role; counters are only INCRed and read, registers and tagged keys written, deleted and read. */
    public record Keys(List<String> registers, List<List<String>> tagGroups, List<String> counters) {
        public static Keys of(int registers, int tagGroups, int counters) {
            List<String> r = new ArrayList<>();
            for (int i = 0; i < registers; i++) r.add("k:" + i);
            List<List<String>> g = new ArrayList<>();
            for (int i = 0; i < tagGroups; i++) g.add(List.of("{g" + i + "}:a", "{g" + i + "}:b", "{g" + i + "}:c"));
            List<String> c = new ArrayList<>();
            for (int i = 0; i < counters; i++) c.add("c:" + i);
            return new Keys(List.copyOf(r), List.copyOf(g), List.copyOf(c));
        }

        public List<String> all() {
            List<String> out = new ArrayList<>(registers);
            tagGroups.forEach(out::addAll);
            out.addAll(counters);
            return out;
        }

        List<String> writable() {
            List<String> out = new ArrayList<>(registers);
            tagGroups.forEach(out::addAll);
            return out;
        }
    }

    private final String host;
    private final int port;
    private final int socketTimeoutMs;
    private final Keys keys;
    private final List<Client> clients = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final AtomicLong answered = new AtomicLong();
    private final Map<String, LongAdder> commands = new ConcurrentHashMap<>();

    /**
     * @param socketTimeoutMs the Jedis socket timeout: longer than the router's request deadline,
     *                        so the router, not the client, decides when a request failed
     * @param pauseMs         pause of each client between two operations (keeps the history of a long run small)
     */
    public Workload(String host, int port, int socketTimeoutMs, Keys keys, int threads, Random seeds, Duration maxTime, long pauseMs) {
        this.host = host;
        this.port = port;
        this.socketTimeoutMs = socketTimeoutMs;
        this.keys = keys;
        for (int t = 0; t < threads; t++) clients.add(new Client(t, new Random(seeds.nextLong()), maxTime, pauseMs));
    }

    public Workload start() {
        clients.forEach(c -> c.thread.start());
        return this;
    }

    /** Stops every client and waits for them (each answers within its socket timeout); fails when one had died. */
    public void stop() throws InterruptedException {
        stop.set(true);
        for (Client c : clients) {
            c.thread.join(socketTimeoutMs + 30_000L);
            if (c.thread.isAlive()) throw new IllegalStateException(c.thread.getName() + " did not stop");
            if (c.failure != null) throw new IllegalStateException(c.thread.getName() + " died", c.failure);
        }
    }

    /** True while every client runs (a client that died would leave the faults untested). */
    public boolean running() {
        return clients.stream().allMatch(c -> c.thread.isAlive());
    }

    /** Every client's operations; call after {@link #stop}. */
    public List<Op> history() {
        List<Op> out = new ArrayList<>();
        for (Client c : clients) out.addAll(c.history);
        return out;
    }

    /** Requests answered so far, reads included (for waits on progress). */
    public long answered() {
        return answered.get();
    }

    /** Commands sent, by command and outcome ("SET OK", "INCR UNKNOWN", ...). */
    public Map<String, Long> commandsByOutcome() {
        Map<String, Long> out = new java.util.TreeMap<>();
        commands.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    public long commands() {
        return commands.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Client-side errors by kind: the reply's first word, or the connection failure. */
    public Map<String, Long> errorsByKind() {
        Map<String, Long> out = new java.util.TreeMap<>();
        errors.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    public Keys keys() {
        return keys;
    }

    /** The outcome an error leaves a write in, and the kind it is counted under. */
    record Failure(Op.Outcome outcome, String kind) {
        static Failure of(RuntimeException e) {
            if (e instanceof JedisDataException && e.getMessage() != null) {
                String word = e.getMessage().split(" ", 2)[0];
                boolean definite = word.equals("CLUSTERDOWN") || word.equals("TRYAGAIN");
                return new Failure(definite ? Op.Outcome.FAILED : Op.Outcome.UNKNOWN, word);
            }
            Throwable root = e;
            while (root.getCause() != null) root = root.getCause();
            String what = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage().replaceAll("[0-9]+", "N");
            return new Failure(Op.Outcome.UNKNOWN, "connection: " + (what.length() > 50 ? what.substring(0, 50) : what));
        }
    }

    private final class Client {
        private final Thread thread;
        private final Random random;
        private final long endNs;
        private final long pauseMs;
        private final List<Op> history = new ArrayList<>();
        /** Connected on first use (Jedis connects in its constructor: the router may be down). */
        private Jedis jedis;
        private long written;
        private volatile Throwable failure;

        Client(int id, Random random, Duration maxTime, long pauseMs) {
            this.random = random;
            this.endNs = System.nanoTime() + maxTime.toNanos();
            this.pauseMs = pauseMs;
            this.thread = new Thread(this::run, "chaos-client-" + id);
            thread.setDaemon(true);
        }

        private String nextValue() {
            return thread.getName().substring("chaos-client-".length()) + "-" + (++written);
        }

        private void run() {
            try {
                while (!stop.get() && System.nanoTime() < endNs) {
                    step();
                    if (pauseMs > 0) Thread.sleep(pauseMs);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                failure = e; // reported by stop(); not rethrown: Ratis's handler of uncaught exceptions would end the test JVM
            } finally {
                if (jedis != null) jedis.close();
            }
        }

        private void step() throws InterruptedException {
            int dice = random.nextInt(100);
            List<String> writable = keys.writable();
            if (dice < 35) {
                String key = writable.get(random.nextInt(writable.size()));
                String value = nextValue();
                long start = System.nanoTime();
                Op.Outcome o = call("SET", () -> jedis.set(key, value));
                history.add(Op.write(key, value, start, System.nanoTime(), o));
            } else if (dice < 65) {
                List<String> all = keys.all();
                String key = all.get(random.nextInt(all.size()));
                long start = System.nanoTime();
                String[] read = new String[1];
                if (call("GET", () -> read[0] = jedis.get(key)) == Op.Outcome.OK) history.add(Op.read(key, read[0], start, System.nanoTime()));
            } else if (dice < 73) {
                String key = writable.get(random.nextInt(writable.size()));
                long start = System.nanoTime();
                Op.Outcome o = call("DEL", () -> jedis.del(key));
                history.add(Op.delete(key, start, System.nanoTime(), o));
            } else if (dice < 88) {
                String key = keys.counters().get(random.nextInt(keys.counters().size()));
                long start = System.nanoTime();
                long[] reply = new long[1];
                Op.Outcome o = call("INCR", () -> reply[0] = jedis.incr(key));
                history.add(Op.incr(key, o == Op.Outcome.OK ? reply[0] : null, start, System.nanoTime(), o));
            } else {
                List<String> group = keys.tagGroups().get(random.nextInt(keys.tagGroups().size()));
                List<String> values = group.stream().map(k -> nextValue()).toList();
                String[] kv = new String[2 * group.size()];
                for (int i = 0; i < group.size(); i++) {
                    kv[2 * i] = group.get(i);
                    kv[2 * i + 1] = values.get(i);
                }
                long start = System.nanoTime();
                Op.Outcome o = call("MSET", () -> jedis.mset(kv));
                long end = System.nanoTime();
                for (int i = 0; i < group.size(); i++) history.add(Op.write(group.get(i), values.get(i), start, end, o));
            }
        }

        /** Runs one request: OK when answered, else the outcome its error leaves (counted by kind). */
        private Op.Outcome call(String command, Runnable request) throws InterruptedException {
            Op.Outcome outcome = send(request);
            commands.computeIfAbsent(command + " " + outcome, k -> new LongAdder()).increment();
            return outcome;
        }

        private Op.Outcome send(Runnable request) throws InterruptedException {
            try {
                if (jedis == null) jedis = new Jedis(host, port, socketTimeoutMs);
                request.run();
                answered.incrementAndGet();
                return Op.Outcome.OK;
            } catch (JedisConnectionException | JedisDataException e) {
                Failure f = Failure.of(e);
                errors.computeIfAbsent(f.kind(), k -> new LongAdder()).increment();
                if (e instanceof JedisConnectionException) {
                    if (jedis != null) jedis.close();
                    jedis = null;
                    Thread.sleep(100); // the router may be down: do not spin on refused connections
                }
                return f.outcome();
            }
        }
    }
}
