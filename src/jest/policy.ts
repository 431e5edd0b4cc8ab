/**
 * `toAllow` / `toDeny`: a connection's NetworkPolicy/ANP/BANP verdict (`evaluatePolicy`), and
 * on failure the explanation: which policies selected the pods, which rule allowed or denied.
 */
import { evaluatePolicy, type PolicyQuery } from "../policy/evaluate.js";
import { formatExplanation } from "../policy/explanation-text.js";
import {
  inputFailure,
  isPolicySubject,
  wrongReceived,
  type MatcherContextLike,
  type MatcherResult,
} from "./context.js";

function queryText(q: PolicyQuery): string {
  const side = (e: PolicyQuery["from"]): string =>
    typeof e === "string" ? e : "pod" in e ? e.pod : e.ip;
  return `${side(q.from)} -> ${side(q.to)} ${(q.protocol ?? "TCP").toUpperCase()}/${q.port}`;
}

function verdictMatcher(name: "toAllow" | "toDeny", wantAllowed: boolean) {
  return function (this: MatcherContextLike, received: unknown, query: PolicyQuery): MatcherResult {
    if (!isPolicySubject(received))
      return wrongReceived(name, "a Cluster (loadCluster or cluster())", received);
    let verdict;
    try {
      verdict = evaluatePolicy(received, query);
    } catch (err) {
      return inputFailure(name, err);
    }
    const pass = verdict.allowed === wantAllowed;
    const got = verdict.allowed ? "allowed" : "denied";
    const want = `${this.isNot === true ? "not " : ""}to be ${wantAllowed ? "allowed" : "denied"}`;
    return {
      pass,
      message: () =>
        `expected ${queryText(query)} ${want}, but it is ${got}\n\n${formatExplanation(verdict.explanation)}`,
    };
  };
}

export const toAllow = verdictMatcher("toAllow", true);
export const toDeny = verdictMatcher("toDeny", false);
