// kube-netsim's own model of this dataplane passes the SCTP test plan (issue 13 §6).
import { describeSctpConformance, kubenetHostports } from "../../../src/testing/index.js";

describeSctpConformance(kubenetHostports);
