/**
 * The union of every iptables match module (`-m MODULE`, and the implicit protocol matches that
 * `-p tcp --dport 80` loads). Each module's type, parser, canonical printer and evaluation live
 * in matches/<module>.ts; src/netfilter/registry.ts lists the extension objects.
 */
import type { AddrtypeMatch } from "./addrtype.js";
import type { CommentMatch } from "./comment.js";
import type { ConnmarkMatch } from "./connmark.js";
import type { ConntrackMatch } from "./conntrack.js";
import type { IcmpMatch } from "./icmp.js";
import type { Icmp6Match } from "./icmp6.js";
import type { IprangeMatch } from "./iprange.js";
import type { IpvsMatch } from "./ipvs.js";
import type { LimitMatch } from "./limit.js";
import type { MarkMatch } from "./mark.js";
import type { MultiportMatch } from "./multiport.js";
import type { NfacctMatch } from "./nfacct.js";
import type { PhysdevMatch } from "./physdev.js";
import type { RecentMatch } from "./recent.js";
import type { SctpMatch } from "./sctp.js";
import type { SetMatch } from "./set.js";
import type { StateMatch } from "./state.js";
import type { StatisticMatch } from "./statistic.js";
import type { TcpMatch } from "./tcp.js";
import type { UdpMatch } from "./udp.js";

export type Match =
  | TcpMatch
  | UdpMatch
  | SctpMatch
  | IcmpMatch
  | Icmp6Match
  | MultiportMatch
  | CommentMatch
  | ConntrackMatch
  | StateMatch
  | MarkMatch
  | ConnmarkMatch
  | AddrtypeMatch
  | StatisticMatch
  | RecentMatch
  | SetMatch
  | PhysdevMatch
  | IprangeMatch
  | NfacctMatch
  | LimitMatch
  | IpvsMatch;

export type MatchModule = Match["module"];

export type {
  AddrtypeMatch,
  CommentMatch,
  ConnmarkMatch,
  ConntrackMatch,
  IcmpMatch,
  Icmp6Match,
  IprangeMatch,
  IpvsMatch,
  LimitMatch,
  MarkMatch,
  MultiportMatch,
  NfacctMatch,
  PhysdevMatch,
  RecentMatch,
  SctpMatch,
  SetMatch,
  StateMatch,
  StatisticMatch,
  TcpMatch,
  UdpMatch,
};
export type { TcpFlags } from "./tcp.js";
export type { SctpChunkTypes } from "./sctp.js";
export type { IcmpTypeSpec } from "./icmp-types.js";
export type { MarkMask } from "./values.js";
export type { AddressRange } from "./iprange.js";
export type { CtStatus } from "./conntrack.js";
export { kernelProbability, probabilityThreshold, formatProbability } from "./statistic.js";
