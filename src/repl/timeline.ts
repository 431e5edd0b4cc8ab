/**
 * The session's history of snapshots. Every accepted edit appends a revision (dropping any
 * undone ones after the current position, as an editor does); undo and redo move the position;
 * checkpoints name a revision's snapshot so `diff NAME` and `reset NAME` can find it even after
 * the history moved on. Immutable (immer): each operation returns a new Timeline.
 */
import { produce, type Draft } from "immer";
import type { Cluster } from "../model/cluster.js";

export interface Revision {
  readonly cluster: Cluster;
  /** What made it, as the user typed it ("loaded", "set svc default/web ..."). */
  readonly description: string;
}

export interface Timeline {
  readonly revisions: readonly Revision[];
  readonly at: number;
  readonly checkpoints: Readonly<Record<string, Revision>>;
}

export function startTimeline(cluster: Cluster, description = "loaded"): Timeline {
  return produce({ revisions: [], at: 0, checkpoints: {} } as Timeline, (d) => {
    d.revisions.push({ cluster, description } as Draft<Revision>);
  });
}

export function current(t: Timeline): Revision {
  return t.revisions[t.at] as Revision;
}

export function previous(t: Timeline): Revision | undefined {
  return t.revisions[t.at - 1];
}

export function commit(t: Timeline, cluster: Cluster, description: string): Timeline {
  return produce(t, (d) => {
    d.revisions.splice(d.at + 1);
    d.revisions.push({ cluster, description } as Draft<Revision>);
    d.at = d.revisions.length - 1;
  });
}

export function undo(t: Timeline): Timeline | undefined {
  return t.at === 0 ? undefined : produce(t, (d) => void (d.at -= 1));
}

export function redo(t: Timeline): Timeline | undefined {
  return t.at >= t.revisions.length - 1 ? undefined : produce(t, (d) => void (d.at += 1));
}

export function checkpoint(t: Timeline, name: string): Timeline {
  return produce(t, (d) => {
    d.checkpoints[name] = d.revisions[d.at] as Draft<Revision>;
  });
}
