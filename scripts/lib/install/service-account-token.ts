/**
 * A ServiceAccount's credentials for a process outside the cluster (the relay `npm start
 * -- --kubeconfig` runs on this machine; ADR 0019): a bound token from the TokenRequest
 * API (`POST .../serviceaccounts/<name>/token`, asked with the admin kubeconfig), kept in
 * a file that the written kubeconfig names through client-node's `tokenFile` auth
 * provider (what `loadFromCluster` uses for a pod's projected token: the file is read
 * again every minute), and asked for again once 80% of its life has passed, as the
 * kubelet renews a projected token.
 */
import { renameSync, writeFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import { stringify } from "yaml";
import { z } from "zod";
import type { Logger } from "../../../cli/log.ts";
import type { KubeClient } from "../../../relay/kube/client.ts";

/** The life asked for: the API server's default (and the kubelet's) for a bound token. */
export const TOKEN_SECONDS = 3600;

/** After a failed renewal, the next try (the token in the file is still valid meanwhile). */
const RETRY_MS = 10_000;

/** The part of a TokenRequest answer used (authentication.k8s.io/v1). */
const TokenRequestAnswer = z.object({ status: z.object({ token: z.string().min(1), expirationTimestamp: z.iso.datetime({ offset: true }) }) });

/** A token and when it expires. */
export interface IssuedToken {
  readonly token: string;
  readonly expires: Date;
}

/** The user name Kubernetes authenticates a ServiceAccount's token as. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** Asks the TokenRequest API for a token of `namespace/name` living `seconds` (the server may shorten it). */
export async function requestToken(admin: Pick<KubeClient, "request">, namespace: string, name: string, seconds = TOKEN_SECONDS): Promise<IssuedToken> {
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}/token`;
  const answer = TokenRequestAnswer.safeParse(await admin.request("POST", path, { body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: seconds } } }));
  if (!answer.success) throw new Error(`the TokenRequest answer for ${namespace}/${name} holds no token: ${answer.error.issues[0]?.message ?? "bad answer"}`);
  return { token: answer.data.status.token, expires: new Date(answer.data.status.expirationTimestamp) };
}

/** When to ask for the next token: once 80% of this one's life (from `issued`) has passed. */
export function renewalDelayMs(issued: Date, expires: Date): number {
  return Math.max(0, Math.floor((expires.getTime() - issued.getTime()) * 0.8));
}

/**
 * A kubeconfig for the same API server as `admin` (server, CA, TLS settings), whose user
 * is the token in `tokenFile`. client-node reads that file again every minute, so a
 * renewed token is used without a restart. (kubectl knows no `tokenFile` auth provider:
 * this file is for the relay.)
 */
export function tokenFileKubeconfig(admin: KubeConfig, tokenFile: string, user: string): string {
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const ca = cluster.caData ? { "certificate-authority-data": cluster.caData } : cluster.caFile ? { "certificate-authority": cluster.caFile } : {};
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "cluster", cluster: { server: cluster.server, ...ca, ...(cluster.skipTLSVerify ? { "insecure-skip-tls-verify": true } : {}), ...(cluster.tlsServerName ? { "tls-server-name": cluster.tlsServerName } : {}) } }],
    users: [{ name: user, user: { "auth-provider": { name: "tokenFile", config: { tokenFile } } } }],
    contexts: [{ name: user, context: { cluster: "cluster", user } }],
    "current-context": user,
  });
}

/** Where the token is kept, and who it is for. */
export interface TokenKeeperOptions {
  readonly admin: Pick<KubeClient, "request">;
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly tokenFile: string;
  readonly seconds?: number;
  readonly log?: Logger;
}

/** Keeps a valid token of the ServiceAccount in `tokenFile`, renewing it until stopped. */
export class TokenKeeper {
  readonly #options: TokenKeeperOptions;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #expires: Date | undefined;

  private constructor(options: TokenKeeperOptions) {
    this.#options = options;
  }

  /** Writes the first token (a failure is thrown: nothing can run without it), then keeps it fresh. */
  static async start(options: TokenKeeperOptions): Promise<TokenKeeper> {
    const keeper = new TokenKeeper(options);
    keeper.#schedule(await keeper.#renew());
    return keeper;
  }

  /** When the token in the file expires. */
  get expires(): Date | undefined {
    return this.#expires;
  }

  /** Asks for a new token now and writes it (also what the timer does). */
  async renew(): Promise<void> {
    this.#schedule(await this.#renew());
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
  }

  async #renew(): Promise<number> {
    const { admin, namespace, serviceAccount, tokenFile, seconds } = this.#options;
    const issued = new Date();
    const token = await requestToken(admin, namespace, serviceAccount, seconds);
    // Replaced whole: the relay never reads half a token.
    writeFileSync(`${tokenFile}.next`, token.token, { mode: 0o600 });
    renameSync(`${tokenFile}.next`, tokenFile);
    this.#expires = token.expires;
    return renewalDelayMs(issued, token.expires);
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#renew().then(
        (next) => this.#schedule(next),
        (error: unknown) => {
          // Said every time, with the server's message: the relay's calls fail with 401 once the token in the file expires.
          this.#options.log?.("error", "could not renew the relay's ServiceAccount token", { serviceAccount: serviceAccountUser(this.#options.namespace, this.#options.serviceAccount), expires: this.#expires?.toISOString(), error: (error as Error).message });
          this.#schedule(RETRY_MS);
        },
      );
    }, delayMs);
    // A pending renewal never keeps the process alive.
    this.#timer.unref();
  }
}
