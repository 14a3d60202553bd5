/**
 * What of the autonomy family runs in the relay (ADR 0034): its webhooks on what the
 * cluster itself writes (Pods, Nodes, Endpoints, EndpointSlices), each declared
 * `decidedAt: relay`, so no such write waits on the link to the Worker. The relay image
 * bundles this file and what it imports, not the rest of the family.
 */
import type { Webhook } from "../../kit/controller.ts";
import { endpointsWebhook } from "./endpoints-webhook.ts";
import { endpointSliceWebhook } from "./endpointslice-webhook.ts";
import { nodeWebhook } from "./node-webhook.ts";
import { podWebhook } from "./pod-webhook.ts";

const webhooks: readonly Webhook[] = [podWebhook, nodeWebhook, endpointsWebhook, endpointSliceWebhook];

export default webhooks;
