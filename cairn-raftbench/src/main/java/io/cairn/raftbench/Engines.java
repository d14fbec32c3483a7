package io.cairn.raftbench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** The engines the harness knows by name; any other {@link Engine} can be named by its class. */
final class Engines {
    private static final Map<String, Supplier<Engine>> KNOWN = new LinkedHashMap<>();

    static {
        KNOWN.put("ratis", io.cairn.raftbench.ratis.RatisEngine::new);
        KNOWN.put("ratis-tuned", io.cairn.raftbench.ratis.RatisEngine.Tuned::new);
        KNOWN.put("ratis-netty", io.cairn.raftbench.ratis.RatisEngine.Netty::new);
        KNOWN.put("sofajraft", io.cairn.raftbench.sofajraft.SofaJraftEngine::new);
        KNOWN.put("microraft", io.cairn.raftbench.microraft.MicroRaftEngine::new);
        KNOWN.put("jgroups-raft", io.cairn.raftbench.jgroupsraft.JGroupsRaftEngine::new);
    }

    private Engines() {
    }

    static Iterable<String> names() {
        return KNOWN.keySet();
    }

    static Engine byName(String name) {
        Supplier<Engine> known = KNOWN.get(name);
        if (known != null) return known.get();
        try {
            return (Engine) Class.forName(name).getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("unknown engine '" + name + "' (known: " + String.join(", ", KNOWN.keySet())
                    + ", or the class name of an Engine)");
        }
    }
}
