/**
 * edgeloop installed in a real cluster with the relay running on this machine (`npm
 * start -- --kubeconfig FILE`; ADR 0019). With the admin kubeconfig: the CRDs and the
 * objects `install-relay` renders for the relay's identity and rights (Namespace,
 * ServiceAccount, ClusterRole and binding, leader-election and leader-label Roles and bindings; not the
 * Deployment, Service nor Secrets: the relay is a local process), waited for until the
 * API server serves the CRDs and authorizes the ServiceAccount as the rules say. Then a
 * kubeconfig as that ServiceAccount (a TokenRequest token, renewed), which is all the
 * relay is given: every call it makes passes through the rendered ClusterRole.
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { KubeConfig } from "@kubernetes/client-node";
import { waitFor, WaitTimeout } from "../../../cli/wait.ts";
import { crdsOf } from "../../../functions/kit/crd/generate.ts";
import { createRegistry } from "../../../functions/registry.ts";
import { StatusError, type KubeObject, type Manifest } from "../../../protocol/index.ts";
import { splitResource } from "../../../protocol/kube/api-version.ts";
import type { Logger } from "../../../cli/log.ts";
import { KubeClient } from "../../../relay/kube/client.ts";
import { applyObject, readObject } from "../apply.ts";
import { loadControllers } from "../controllers.ts";
import { LEADER_LABEL_RULES, LEADER_RULES, NAME, relayAccessObjects } from "./objects.ts";
import { relayRules } from "./rbac.ts";
import { serviceAccountUser, TokenKeeper, tokenFileKubeconfig } from "./service-account-token.ts";

/** The install could not be made or did not take effect: the message names what and carries the API server's words. */
export class InstallError extends Error {}

/** The namespace `install-relay` defaults to. */
export const DEFAULT_NAMESPACE = "edgeloop";

/** How to install. */
export interface LocalInstallOptions {
  /** Cluster admin: used to install and to ask for tokens, never given to the relay. */
  readonly adminKubeconfigPath: string;
  readonly extraControllerDirs?: readonly string[];
  readonly namespace?: string;
  /** A private folder (mode 700) for the token and the relay's kubeconfig. */
  readonly dir: string;
  /** The token's life asked for (default 3600 s; renewed at 80%). */
  readonly tokenSeconds?: number;
  readonly log?: Logger;
  readonly progress?: (step: string) => void;
}

/** What was installed, and the relay's credentials. */
export interface LocalInstall {
  readonly namespace: string;
  /** `system:serviceaccount:<namespace>:edgeloop-relay`: who the relay is to the API server. */
  readonly user: string;
  /** The kubeconfig the relay is started with (the ServiceAccount's token). */
  readonly relayKubeconfigPath: string;
  readonly manifest: Manifest;
  /** A client with the admin kubeconfig (webhook registration). */
  readonly admin: KubeClient;
  readonly token: TokenKeeper;
  /** Stops renewing the token (the installed objects stay, as `install-relay`'s do). */
  stop(): void;
}

/** Installs the CRDs and the relay's access, waits until both are in effect, and writes the relay's kubeconfig. */
export async function installForLocalRelay(options: LocalInstallOptions): Promise<LocalInstall> {
  const progress = options.progress ?? ((): void => undefined);
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const adminConfig = new KubeConfig();
  adminConfig.loadFromFile(options.adminKubeconfigPath);
  const admin = new KubeClient(adminConfig);
  const controllers = await loadControllers(options.extraControllerDirs ?? []);
  const manifest = createRegistry(controllers).manifest;
  const crds = crdsOf(controllers) as unknown as KubeObject[];
  const access = relayAccessObjects(namespace, manifest);
  progress(`installing ${crds.length} CRD(s) and the relay's ServiceAccount, ClusterRole, leader-election and leader-label Roles (namespace ${namespace})`);
  for (const object of [...crds, ...access]) await applyObject(admin, object).catch((error: unknown) => Promise.reject(refused(object, error)));
  await untilEstablished(admin, crds);
  const user = serviceAccountUser(namespace, NAME);
  await untilAuthorized(admin, user, namespace, manifest);
  const tokenFile = join(options.dir, "relay.token");
  const token = await TokenKeeper.start({ admin, namespace, serviceAccount: NAME, tokenFile, ...(options.tokenSeconds ? { seconds: options.tokenSeconds } : {}), ...(options.log ? { log: options.log } : {}) }).catch((error: unknown) => {
    throw new InstallError(`no token for ${user} from the TokenRequest API: ${(error as Error).message}`);
  });
  const relayKubeconfigPath = join(options.dir, "relay.kubeconfig");
  writeFileSync(relayKubeconfigPath, tokenFileKubeconfig(adminConfig, tokenFile, user), { mode: 0o600 });
  progress(`the relay runs as ${user} (a TokenRequest token until ${token.expires?.toISOString() ?? "?"}, renewed at 80% of its life)`);
  return { namespace, user, relayKubeconfigPath, manifest, admin, token, stop: () => token.stop() };
}

/** An apply that failed, naming the object and carrying the server's message (or why the server was not reached). */
function refused(object: KubeObject, error: unknown): InstallError {
  const name = `${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ""}${object.metadata.name ?? ""}`;
  return new InstallError(error instanceof StatusError ? `the API server refused ${name} (${error.status} ${error.reason}): ${error.message}` : `could not apply ${name}: ${(error as Error).message}`);
}

/** Waits until the API server reports `pending()` empty (a condition of the server, not a timing guess); an InstallError naming what is still pending otherwise. */
async function untilNone<T>(what: string, pending: () => Promise<readonly T[]>, describe: (left: readonly T[]) => string, timeoutMs = 30_000): Promise<void> {
  try {
    await waitFor(what, pending, (left) => left.length === 0, { timeoutMs, intervalMs: 100, describe });
  } catch (error) {
    throw error instanceof WaitTimeout ? new InstallError(error.message) : error;
  }
}

interface Crd extends KubeObject {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

/** Until every CRD is `Established` (served): the relay lists them as soon as it starts. */
async function untilEstablished(admin: KubeClient, crds: readonly KubeObject[]): Promise<void> {
  const pending = async (): Promise<Crd[]> => {
    const states = await Promise.all(crds.map(async (crd) => ((await readObject(admin, crd)) ?? crd) as Crd));
    return states.filter((crd) => !crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True"));
  };
  await untilNone("every CRD to be established (those not)", pending, (left) => left.map((crd) => `${crd.metadata.name ?? ""} (${crd.status?.conditions?.map((c) => `${c.type}=${c.status}${c.message ? `: ${c.message}` : ""}`).join(", ") ?? "no conditions"})`).join("; "));
}

/** One access to check: what RBAC sees of a request. */
interface Attributes {
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly verb: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** Every (group, resource, verb) the rules grant, as SubjectAccessReview attributes. */
export function grantedAttributes(manifest: Manifest, namespace: string): Attributes[] {
  const split = (name: string): { resource: string; subresource?: string } => {
    const { resource, subresource } = splitResource(name);
    return subresource ? { resource, subresource } : { resource };
  };
  const cluster = relayRules(manifest).flatMap((rule) => rule.apiGroups.flatMap((group) => rule.resources.flatMap((resource) => rule.verbs.map((verb) => ({ group, ...split(resource), verb })))));
  const leader = LEADER_RULES.flatMap((rule) => rule.verbs.map((verb) => ({ group: rule.apiGroups[0], resource: rule.resources[0], verb, namespace, ...("resourceNames" in rule ? { name: rule.resourceNames[0] } : {}) })));
  const label = LEADER_LABEL_RULES.flatMap((rule) => rule.verbs.map((verb) => ({ group: rule.apiGroups[0], resource: rule.resources[0], verb, namespace })));
  return [...cluster, ...leader, ...label];
}

/**
 * Until the API server authorizes the ServiceAccount for every grant (SubjectAccessReview,
 * asked by the admin): RBAC's caches take a moment to see new bindings, and a relay that
 * started before would meet 403s.
 */
async function untilAuthorized(admin: KubeClient, user: string, namespace: string, manifest: Manifest): Promise<void> {
  const groups = ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"];
  const denied = async (): Promise<{ attributes: Attributes; reason: string }[]> => {
    const answers = await Promise.all(
      grantedAttributes(manifest, namespace).map(async (attributes) => {
        const review = (await admin.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", { body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: { user, groups, resourceAttributes: attributes } } })) as { status?: { allowed?: boolean; reason?: string } };
        return review.status?.allowed === true ? undefined : { attributes, reason: review.status?.reason ?? "" };
      }),
    );
    return answers.filter((a) => a !== undefined);
  };
  await untilNone(
    `${user} to be allowed every grant (those still denied)`,
    denied,
    (left) => left.map(({ attributes: a, reason }) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ""}${a.group ? `.${a.group}` : ""}${reason ? ` (${reason})` : ""}`).join(", "),
    15_000,
  );
}
