/**
 * SCTP probe servers for a scenario's topology: every place listens on the scenario's ports on
 * all its addresses, started only when a probe needs SCTP (and the machine has SCTP sockets).
 * Kept apart from the TCP/UDP servers: those are Node.js programs, these Python ones.
 */
import { startSctpServer } from "../linux/sctp.js";
import { placesOf, type Place, type ScenarioTopology } from "./topology.js";

/** `address port` pairs an SCTP server already listens on, per place. */
const listening = new WeakMap<Place, Set<string>>();

/**
 * SCTP retransmits a lost INIT after rto_initial (3 s by default), longer than a probe waits:
 * start lower, as the UDP client resends within its timeout. Best effort (a per-namespace
 * sysctl that exists once the sctp module is loaded).
 */
function shortenRetransmissions(place: Place): void {
  for (const [key, value] of [
    ["net.sctp.rto_initial", "200"],
    ["net.sctp.rto_min", "100"],
  ])
    place.ns.run("sysctl", ["-q", "-w", `${key}=${value}`]);
}

export async function ensureSctpListening(
  t: ScenarioTopology,
  ports: readonly number[],
): Promise<void> {
  const wanted = [...new Set(ports)];
  await Promise.all(
    placesOf(t).map(async (place) => {
      let done = listening.get(place);
      if (done === undefined) {
        shortenRetransmissions(place);
        listening.set(place, (done = new Set()));
      }
      await Promise.all(
        place.addresses.map(async (address) => {
          const missing = wanted.filter((p) => !done.has(`${address} ${p}`));
          if (missing.length === 0) return;
          t.children.push(await startSctpServer(place.ns, place.role, [address], missing));
          for (const p of missing) done.add(`${address} ${p}`);
        }),
      );
    }),
  );
}
