// The plugin's own rules pass kube-netsim's SCTP conformance suite (the SCTP test plan).
import { describeSctpConformance } from "kube-netsim/testing";
import { tinypol } from "../src/netpol-plugin";

describeSctpConformance(tinypol);
