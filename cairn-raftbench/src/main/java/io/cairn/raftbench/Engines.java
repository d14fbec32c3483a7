package io.cairn.raftbench;

import io.cairn.raftbench.jgroupsraft.JGroupsRaftEngine;
import io.cairn.raftbench.microraft.MicroRaftEngine;
import io.cairn.raftbench.ratis.RatisEngine;
import io.cairn.raftbench.sofajraft.SofaJraftEngine;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/** The engines the harness knows by name; any other {@link Engine} can be named by its class. */
final class Engines {
    private static final Map<String, Supplier<Engine>> KNOWN = new LinkedHashMap<>();

    static {
        KNOWN.put("ratis", RatisEngine::new);
        KNOWN.put("ratis-tuned", RatisEngine.Tuned::new);
        KNOWN.put("ratis-netty", RatisEngine.Netty::new);
        KNOWN.put("sofajraft", SofaJraftEngine::new);
        KNOWN.put("microraft", MicroRaftEngine::new);
        KNOWN.put("jgroups-raft", JGroupsRaftEngine::new);
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
