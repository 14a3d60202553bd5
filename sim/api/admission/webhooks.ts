/**
 * Dynamic admission: the MutatingAdmissionWebhook and ValidatingAdmissionWebhook steps,
 * which call the webhooks of the Mutating and Validating WebhookConfigurations for the
 * requests their rules match, with AdmissionReview v1, as kube-apiserver does.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { KubeObject } from "../../../protocol/index.ts";
import { matchesLabelRequirements, requirementsOfLabelSelector, type LabelSelectorObject } from "../../../protocol/kube/selectors.ts";
import { splitResource } from "../../../protocol/kube/api-version.ts";
import { ApiError } from "../../contract.ts";
import { jsonPatch } from "../../patch/json.ts";
import type { ResourceType } from "../../registry/resource.ts";
import { asObj, type Obj } from "../objects.ts";
import type { Write } from "../write.ts";
import type { AdmissionStep } from "./step.ts";

/** One admission call to make. */
interface AdmissionAttributes {
  readonly operation: "CREATE" | "UPDATE" | "DELETE";
  readonly type: ResourceType;
  readonly version: string;
  readonly subresource: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly object: KubeObject | null;
  readonly oldObject: KubeObject | null;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  readonly dryRun: boolean;
  readonly user: string | undefined;
}

/** Where a `service` clientConfig is reached from the sim (which has no cluster network). */
export type ServiceResolver = (namespace: string, name: string, port: number) => string | undefined;

interface Rule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

interface WebhookEntry {
  name: string;
  clientConfig?: { url?: string; caBundle?: string; service?: { namespace: string; name: string; path?: string; port?: number } };
  rules?: Rule[];
  failurePolicy?: "Fail" | "Ignore";
  timeoutSeconds?: number;
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
}

const matches = (list: readonly string[] | undefined, value: string): boolean => (list ?? []).some((item) => item === "*" || item === value);

/** Rule resources: `pods` (the resource only), `pods/status`, `pods/<star>` (every subresource), `<star>/<star>` (everything). */
function resourceMatches(rules: readonly string[] | undefined, plural: string, subresource: string): boolean {
  return (rules ?? []).some((rule) => {
    if (rule === "*/*") return true;
    const { resource, subresource: sub } = splitResource(rule);
    if (resource !== "*" && resource !== plural) return false;
    return sub === "*" ? subresource !== "" : sub === subresource;
  });
}

function ruleMatches(rule: Rule, a: AdmissionAttributes): boolean {
  if (!matches(rule.operations, a.operation)) return false;
  if (!matches(rule.apiGroups, a.type.group) || !matches(rule.apiVersions, a.version)) return false;
  if (!resourceMatches(rule.resources, a.type.plural, a.subresource)) return false;
  const scope = rule.scope ?? "*";
  return scope === "*" || (scope === "Namespaced") === a.type.namespaced;
}

function selected(webhook: WebhookEntry, a: AdmissionAttributes): boolean {
  if (!(webhook.rules ?? []).some((rule) => ruleMatches(rule, a))) return false;
  // namespaceSelector applies to namespaced objects (and to Namespaces themselves).
  if (a.namespace !== undefined && !matchesLabelRequirements(a.namespaceLabels, requirementsOfLabelSelector(webhook.namespaceSelector))) return false;
  const objectSelector = requirementsOfLabelSelector(webhook.objectSelector);
  if (objectSelector.length === 0) return true;
  return [a.object, a.oldObject].some((o) => o !== null && matchesLabelRequirements(o.metadata.labels, objectSelector));
}

function reviewOf(a: AdmissionAttributes, uid: string): Obj {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid,
      kind: { group: a.type.group, version: a.version, kind: a.type.kind },
      resource: { group: a.type.group, version: a.version, resource: a.type.plural },
      ...(a.subresource ? { subResource: a.subresource } : {}),
      requestKind: { group: a.type.group, version: a.version, kind: a.type.kind },
      requestResource: { group: a.type.group, version: a.version, resource: a.type.plural },
      name: a.name,
      ...(a.namespace ? { namespace: a.namespace } : {}),
      operation: a.operation,
      userInfo: a.user ? { username: a.user, groups: ["system:authenticated"] } : { username: "sim-admin", groups: ["system:masters", "system:authenticated"] },
      object: a.object,
      oldObject: a.oldObject,
      dryRun: a.dryRun,
      options: { apiVersion: "meta.k8s.io/v1", kind: `${a.operation[0]}${a.operation.slice(1).toLowerCase()}Options` },
    },
  };
}

/** POSTs a review and parses the answer; throws on transport errors and timeouts. */
function post(url: string, caBundle: string | undefined, body: string, timeoutMs: number): Promise<Obj> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const ca = caBundle ? Buffer.from(caBundle, "base64").toString("utf8") : undefined;
    const req = send(
      target,
      { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }, timeout: timeoutMs, ...(ca ? { ca } : {}) },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => {
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`the server responded with status ${res.statusCode ?? 0}: ${text.slice(0, 200)}`));
          try {
            resolve(asObj(JSON.parse(text)));
          } catch {
            reject(new Error("the response is not JSON"));
          }
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`context deadline exceeded (timeout ${timeoutMs / 1000}s)`)));
    req.on("error", reject);
    req.end(body);
  });
}

function endpoint(webhook: WebhookEntry, resolveService: ServiceResolver | undefined): string {
  const config = webhook.clientConfig ?? {};
  if (config.url) return config.url;
  const service = config.service;
  const base = service && resolveService?.(service.namespace, service.name, service.port ?? 443);
  if (!service || !base) throw new Error(`service ${service?.namespace ?? ""}/${service?.name ?? ""} is not reachable from the sim (no resolver mapping)`);
  return `${base.replace(/\/$/, "")}${service.path ?? ""}`;
}

/** Calls one webhook; returns its response, or null when it failed and failurePolicy is Ignore. */
async function call(webhook: WebhookEntry, a: AdmissionAttributes, resolveService: ServiceResolver | undefined): Promise<Obj | null> {
  try {
    const review = await post(endpoint(webhook, resolveService), webhook.clientConfig?.caBundle, JSON.stringify(reviewOf(a, crypto.randomUUID())), (webhook.timeoutSeconds ?? 10) * 1000);
    return asObj(review.response);
  } catch (error) {
    if (webhook.failurePolicy === "Ignore") return null;
    throw new ApiError(500, "InternalError", `Internal error occurred: failed calling webhook "${webhook.name}": ${(error as Error).message}`);
  }
}

function denial(webhook: WebhookEntry, response: Obj): ApiError {
  const status = asObj(response.status);
  const code = typeof status.code === "number" && status.code >= 400 ? status.code : 400;
  const message = typeof status.message === "string" ? status.message : "";
  return new ApiError(code, typeof status.reason === "string" ? status.reason : "BadRequest", `admission webhook "${webhook.name}" denied the request${message ? `: ${message}` : " without explanation"}`);
}

/** The webhooks of every configuration object of one kind, in name order. */
function webhooksOf(configurations: readonly KubeObject[]): WebhookEntry[] {
  return [...configurations]
    .sort((x, y) => (x.metadata.name ?? "").localeCompare(y.metadata.name ?? ""))
    .flatMap((configuration) => ((configuration as Obj).webhooks as WebhookEntry[] | undefined) ?? []);
}

/**
 * Runs the mutating webhooks in order, each seeing the previous one's result; returns
 * the object as mutated. Throws `ApiError` on a denial or a failing `Fail` webhook.
 */
async function mutate(webhooks: readonly WebhookEntry[], a: AdmissionAttributes & { readonly object: KubeObject }, resolveService: ServiceResolver | undefined): Promise<KubeObject> {
  let object = a.object;
  for (const webhook of webhooks) {
    const attributes = { ...a, object };
    if (!selected(webhook, attributes)) continue;
    const response = await call(webhook, attributes, resolveService);
    if (!response) continue;
    if (response.allowed !== true) throw denial(webhook, response);
    if (typeof response.patch === "string") {
      try {
        object = jsonPatch(object, JSON.parse(Buffer.from(response.patch, "base64").toString("utf8"))) as unknown as KubeObject;
      } catch (error) {
        throw new ApiError(500, "InternalError", `Internal error occurred: webhook "${webhook.name}" returned an invalid patch: ${(error as Error).message}`);
      }
    }
  }
  return object;
}

/** Runs the validating webhooks (concurrently, as kube-apiserver does). */
async function validate(webhooks: readonly WebhookEntry[], a: AdmissionAttributes, resolveService: ServiceResolver | undefined): Promise<void> {
  const chosen = webhooks.filter((webhook) => selected(webhook, a));
  const responses = await Promise.all(chosen.map((webhook) => call(webhook, a, resolveService).then((response) => ({ webhook, response }))));
  for (const { webhook, response } of responses) {
    if (response && response.allowed !== true) throw denial(webhook, response);
  }
}

const MUTATING = "admissionregistration.k8s.io/mutatingwebhookconfigurations";
const VALIDATING = "admissionregistration.k8s.io/validatingwebhookconfigurations";

/** The webhooks configured in `table` that may apply to the write, if any (none for the configurations themselves). */
function configured(write: Write, table: string): WebhookEntry[] | undefined {
  if (write.kind.exemptFromWebhooks) return undefined;
  const webhooks = webhooksOf(write.server.store.list(table).map((s) => s.object));
  return webhooks.length > 0 ? webhooks : undefined;
}

function attributes(write: Write, object: KubeObject | null): AdmissionAttributes {
  const namespace = write.namespace === undefined ? undefined : write.server.store.get("/namespaces", undefined, write.namespace);
  return {
    operation: write.operation,
    type: write.resource,
    version: write.version,
    subresource: write.subresource,
    namespace: write.namespace,
    name: write.name,
    object,
    oldObject: write.oldObject,
    namespaceLabels: namespace?.object.metadata.labels ?? {},
    dryRun: write.dryRun,
    user: write.user,
  };
}

/** The MutatingAdmissionWebhook plugin: creates and updates (deletes are not mutated). */
export const mutatingWebhooks: AdmissionStep = {
  name: "MutatingAdmissionWebhook",
  admit: (draft, write) => {
    const webhooks = configured(write, MUTATING);
    return webhooks ? mutate(webhooks, { ...attributes(write, draft), object: draft }, write.server.resolveService) : draft;
  },
};

/** The ValidatingAdmissionWebhook plugin: creates, updates and deletes. */
export const validatingWebhooks: AdmissionStep = {
  name: "ValidatingAdmissionWebhook",
  admit: (draft, write) => {
    const webhooks = configured(write, VALIDATING);
    return webhooks ? validate(webhooks, attributes(write, draft), write.server.resolveService).then(() => draft) : draft;
  },
  admitDelete: (write) => {
    const webhooks = configured(write, VALIDATING);
    return webhooks ? validate(webhooks, attributes(write, null), write.server.resolveService) : undefined;
  },
};
