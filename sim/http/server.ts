/**
 * The sim's HTTP face: the Kubernetes REST API over node:http on 127.0.0.1, enough for
 * kubectl and @kubernetes/client-node (discovery, CRUD, patch, watch, tables).
 */
import { paginate } from "./paging.ts";
import { checkResourceVersion, listOptionsOf, type ListOptions } from "./list-options.ts";
import { checkWriteOptions } from "./write-options.ts";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { capConnections, CONNECTION_LIMITS, serverLimits, type ConnectionLimits } from "../../cli/http-limits.ts";
import type { AddressInfo } from "node:net";
import { parse as parseYaml } from "yaml";
import type { KubeObject } from "../../protocol/index.ts";
import { apiVersionOf, versionOf } from "../../protocol/kube/api-version.ts";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "../../protocol/kube/selectors.ts";
import { ApiError, type DeleteOptions, type PatchType } from "../contract.ts";
import type { SimCluster, WriteOptions } from "../api/sim-cluster.ts";
import { kindOf } from "../api/kinds/registry.ts";
import { asObj } from "../api/objects.ts";
import { badRequest, invalid, listTooOld, methodNotAllowed } from "../pipeline/errors.ts";
import { parseFieldValidation } from "../pipeline/unknown-fields.ts";
import type { ResourceType } from "../registry/resource.ts";
import { coreVersions, groupList, groupOf, resourceList, versionDoc } from "./discovery.ts";
import { openApiGroupVersion, openApiIndex } from "./openapi.ts";
import { toTable, wantsTable, type IncludeObject } from "./table.ts";
import { patchAt, patchScale, requestedReplicas, toCustomScale, toScale, type ScalePaths } from "./scale.ts";
import { serveLogs } from "./logs.ts";
import { podStreamTarget, podStreamUpgrades } from "./pod-streams.ts";
import { isReview, review } from "./reviews.ts";
import { serveWatch } from "./watch.ts";
import { queryBool, queryInt } from "./query.ts";
import { decodeBody } from "./protobuf/decode.ts";
import { negotiateResponse, sendNegotiated } from "./protobuf/respond.ts";
import { MAX_BODY_DEPTH, nestedDeeperThan } from "./depth.ts";
import type { SimFaults } from "../faults/faults.ts";
import { injectFault } from "../faults/inject.ts";
import { serveFaults } from "../faults/http.ts";

/** A parsed resource URL. */
interface Target {
  readonly resource: ResourceType;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
}

/** Options of the HTTP server. */
export interface ApiServerOptions {
  readonly port?: number;
  /** Milliseconds between watch bookmarks (default 10 s). */
  readonly bookmarkIntervalMs?: number;
  /** Structured log sink (requests at debug level). */
  readonly log?: (level: "debug" | "info" | "warn" | "error", msg: string, fields?: Record<string, unknown>) => void;
  /** Injected faults (chaos tests): chosen requests answered with errors or slowly, watches ended or shaped. */
  readonly faults?: SimFaults;
  /** Timeouts and the connection cap (default {@link SIM_CONNECTION_LIMITS}). */
  readonly connections?: ConnectionLimits;
}

/**
 * The sim's connection limits: the relay's (a slowloris was held 90–300 s), but idle
 * connections kept a minute as before (watch clients reconnect less) and more of them.
 */
export const SIM_CONNECTION_LIMITS: ConnectionLimits = { ...CONNECTION_LIMITS, keepAliveTimeoutMs: 60_000, maxConnections: 16_384 };

/** A running API server. */
export interface ApiServer {
  readonly url: string;
  readonly port: number;
  /** Ends every open watch stream (as an API server restart does); clients reconnect. */
  closeWatches(): number;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new ApiError(413, "RequestEntityTooLarge", "the request body is too large"));
      else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function parseBody(body: Buffer, contentType: string): unknown {
  if (contentType.includes("protobuf")) return decodeBody(body);
  if (contentType.includes("cbor")) {
    throw new ApiError(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`);
  }
  const text = body.toString("utf8");
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = contentType.includes("yaml") ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw badRequest(`the body of the request was in an unknown format: ${(error as Error).message}`);
  }
  if (nestedDeeperThan(parsed)) throw badRequest(`the body of the request was in an unknown format: exceeded max depth (${MAX_BODY_DEPTH})`);
  return parsed;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (sendNegotiated(response, status, body)) return;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  response.end(text);
}

function patchTypeOf(contentType: string): PatchType {
  if (contentType.startsWith("application/json-patch+json")) return "json";
  if (contentType.startsWith("application/merge-patch+json")) return "merge";
  if (contentType.startsWith("application/strategic-merge-patch+json")) return "strategic";
  if (contentType.startsWith("application/apply-patch+yaml")) return "apply";
  throw new ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {});
}

/** A path segment percent-decoded; a malformed escape (`%ZZ`) is the client's error (400), not a 500. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw badRequest(`malformed percent-encoding in the path segment ${JSON.stringify(segment)}`);
  }
}

/** Resolves `/api/v1/...` and `/apis/{g}/{v}/...` to a resource, or null for a discovery path. */
function parseTarget(cluster: SimCluster, segments: readonly string[]): Target | null {
  const [root, a, b] = segments;
  const group = root === "api" ? "" : (a ?? "");
  const version = root === "api" ? (a ?? "") : (b ?? "");
  const rest = segments.slice(root === "api" ? 2 : 3);
  if (rest.length === 0) return null;
  let namespace: string | undefined;
  let parts = rest;
  if (rest[0] === "namespaces" && rest.length >= 3 && rest[2] !== "status" && rest[2] !== "finalize") {
    namespace = rest[1];
    parts = rest.slice(2);
  }
  const [plural, name, subresource] = parts;
  const resource = cluster.registry.byPath(group, version, plural ?? "");
  if (!resource) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
  return { resource, version, namespace, name, subresource };
}

/** A DELETE's answer: the object while its deletion is pending, else the Status, or the object when the kind says so (its `returnsDeletedObject`). */
function deleted(resource: ResourceType, object: KubeObject): unknown {
  if (object.metadata.deletionTimestamp || kindOf(resource).returnsDeletedObject) return object;
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", details: { name: object.metadata.name, ...(resource.group ? { group: resource.group } : {}), kind: resource.plural, uid: object.metadata.uid } };
}

/**
 * A body of another kind than the URL's resource cannot be decoded into it (built-in
 * kinds; a custom resource's body is checked by its CRD's schema).
 */
function checkBodyKind(resource: ResourceType, body: KubeObject): void {
  if (resource.crd || typeof body.kind !== "string" || body.kind === "" || body.kind === resource.kind) return;
  const version = typeof body.apiVersion === "string" ? body.apiVersion : resource.version;
  const internal = resource.group === "" ? "core" : resource.group.split(".")[0] ?? resource.group;
  const external = `${versionOf(version)}.${body.kind}`;
  throw badRequest(`${body.kind} in version ${JSON.stringify(version)} cannot be handled as a ${resource.kind}: converting (${external}) to (${internal}.${resource.kind}): unknown conversion`);
}

/** A Table's `includeObject` (Metadata when absent or empty); another value is the 400 ValidateTableOptions earns. */
function includeObject(q: URLSearchParams): IncludeObject {
  const value = q.get("includeObject") ?? "";
  if (value === "None" || value === "Object" || value === "Metadata") return value;
  if (value === "") return "Metadata";
  throw badRequest(`Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(value)}: must be 'Metadata', 'Object', 'None', or empty`);
}

/** ValidateDeleteOptions: a known propagationPolicy, and not together with the deprecated orphanDependents. */
function checkDeleteOptions(policy: string | undefined, orphanGiven: boolean): void {
  if (policy === undefined) return;
  if (!["Foreground", "Background", "Orphan"].includes(policy)) {
    throw invalid("DeleteOptions", "meta.k8s.io", "", [{ field: "propagationPolicy", reason: "FieldValueNotSupported", message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"` }]);
  }
  if (orphanGiven) throw invalid("DeleteOptions", "meta.k8s.io", "", [{ field: "propagationPolicy", reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set` }]);
}

/** Objects in etcd's key order (namespace, then name), the order kube-apiserver lists in. */
function sortedByKey<T extends { readonly object: KubeObject }>(items: readonly T[]): T[] {
  const key = (item: T): string => `${item.object.metadata.namespace ?? ""}/${item.object.metadata.name ?? ""}`;
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** A list's item: a built-in kind's items carry no apiVersion and kind (its list says them); a custom resource's do. */
function listItem(resource: ResourceType, object: KubeObject): unknown {
  if (resource.crd) return object;
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return rest;
}

/** `listItem` on a stored object's serialisation (lists reuse it rather than serialising again). */
function listItemJson(resource: ResourceType, json: string): string {
  if (resource.crd) return json;
  const prefix = /^\{"apiVersion":"[^"]*","kind":"[^"]*",?/.exec(json);
  return prefix ? `{${json.slice(prefix[0].length)}` : JSON.stringify(listItem(resource, JSON.parse(json) as KubeObject));
}

/** Creates the HTTP server over `cluster` and starts listening on 127.0.0.1. */
export async function startApiServer(cluster: SimCluster, options: ApiServerOptions = {}): Promise<ApiServer> {
  const watches = new Set<(gone?: boolean) => void>();
  // A body read early (a fault rule needed a create's name) is read once.
  const peeked = new WeakMap<IncomingMessage, Promise<Buffer>>();
  const requestBody = (request: IncomingMessage): Promise<Buffer> => peeked.get(request) ?? readBody(request);
  const log = options.log ?? ((): void => undefined);
  let baseUrl = "";

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = URL.parse(request.url ?? "/", "http://sim");
    // A request target such as `//` is no URL path.
    if (!url) throw badRequest(`malformed request target ${JSON.stringify(request.url ?? "")}`);
    const segments = url.pathname.split("/").filter((s) => s !== "").map(decodeSegment);
    const method = request.method ?? "GET";
    log("debug", "request", { method, path: url.pathname, query: url.search });
    const path = url.pathname.replace(/\/$/, "");
    if (method === "GET") {
      if (path === "/version") return sendJson(response, 200, versionDoc());
      if (path === "/healthz" || path === "/readyz" || path === "/livez") return sendJson(response, 200, "ok");
      if (path === "/api") return sendJson(response, 200, coreVersions(baseUrl.replace(/^https?:\/\//, "")));
      if (path === "/apis") return sendJson(response, 200, groupList(cluster.registry));
      if (path === "/openapi/v3") return sendJson(response, 200, openApiIndex(cluster.registry));
      if (segments[0] === "openapi" && segments[1] === "v3") {
        const doc = segments[2] === "api" ? openApiGroupVersion(cluster.registry, "", segments[3] ?? "") : openApiGroupVersion(cluster.registry, segments[3] ?? "", segments[4] ?? "");
        if (!doc) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
        return sendJson(response, 200, doc);
      }
      if (segments[0] === "openapi") throw new ApiError(404, "NotFound", "the sim serves OpenAPI v3 only");
      if (segments[0] === "apis" && segments.length === 2) {
        const doc = groupOf(cluster.registry, segments[1] ?? "");
        if (!doc) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
        return sendJson(response, 200, doc);
      }
      if ((segments[0] === "api" && segments.length === 2) || (segments[0] === "apis" && segments.length === 3)) {
        const doc = segments[0] === "api" ? resourceList(cluster.registry, "", segments[1] ?? "") : resourceList(cluster.registry, segments[1] ?? "", segments[2] ?? "");
        if (!doc) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
        return sendJson(response, 200, doc);
      }
    }
    if (segments[0] === "sim" && segments[1] === "faults" && options.faults) {
      const answer = await serveFaults(options.faults, method, segments.slice(2), async () => parseBody(await requestBody(request), "json"));
      return sendJson(response, answer.status, answer.body);
    }
    if (method === "POST" && isReview(path)) return sendJson(response, 201, review(path, parseBody(await requestBody(request), request.headers["content-type"] ?? "application/json")));
    if (segments[0] !== "api" && segments[0] !== "apis") throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
    const target = parseTarget(cluster, segments);
    if (!target) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
    const q = url.searchParams;
    const dryRun = q.get("dryRun") === "All";
    const watching = queryBool(q, "watch");
    const apiVersion = apiVersionOf(target.resource.group, target.version);
    const typeRef = { apiVersion, kind: target.resource.kind };
    const contentType = request.headers["content-type"] ?? "application/json";
    checkWriteOptions(method, q, contentType);
    if (options.faults) {
      const read = (): Promise<Buffer> => {
        const promise = readBody(request);
        peeked.set(request, promise);
        return promise;
      };
      await injectFault(options.faults, { method, path: url.pathname, watch: watching, resource: target.resource.plural, subresource: target.subresource, namespace: target.namespace, name: target.name, contentType }, read, response);
    }
    // namespaces/{name}/finalize takes a PUT of spec.finalizers (the namespace controller's last step).
    const finalize = target.subresource === "finalize" && target.resource.group === "" && target.resource.kind === "Namespace";
    if (finalize && method !== "PUT") throw methodNotAllowed();
    const status = target.subresource === "status" ? ({ subresource: "status" } as const) : finalize ? ({ subresource: "finalize" } as const) : {};
    /** fieldValidation and the Warning headers of a write. */
    const validation = (operation: "Create" | "Update" | "Patch"): Pick<WriteOptions, "fieldValidation" | "warn"> => ({
      fieldValidation: parseFieldValidation(q.get("fieldValidation"), operation),
      warn: (message) => response.appendHeader("Warning", `299 - ${JSON.stringify(message)}`),
    });
    negotiateResponse(request, response, typeRef, watching);
    if (podStreamTarget(url.pathname)) throw badRequest("Upgrade request required");
    if (target.subresource === "log" && target.resource.group === "" && target.resource.kind === "Pod" && target.name) return serveLogs(cluster, target.namespace ?? "default", target.name, method, q, response);
    if (target.subresource === "scale" && target.resource.extraSubresources.includes("scale") && target.name) return scale(target, typeRef, method, contentType, request, response);
    if (target.subresource === "scale" && target.resource.crd && target.name) {
      const paths = await customScalePaths(target.resource, target.version);
      if (paths) return customScale(target, typeRef, paths, method, contentType, request, response);
    }
    if (target.subresource && target.subresource !== "status" && target.subresource !== "binding" && !finalize) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
    // A kind without a status subresource (ConfigMap, Secret, Lease, ...) serves no `/status`; a CRD's only when it declares one.
    if (target.subresource === "status" && !target.resource.statusSubresource) throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});

    switch (method) {
      case "GET": {
        if (watching) return watch(target, q, listOptionsOf(q), request, response);
        if (target.name) {
          checkResourceVersion(q.get("resourceVersion") ?? "", "get");
          const object = await cluster.get(typeRef, target.namespace, target.name);
          return sendJson(response, 200, wantsTable(request.headers.accept) ? toTable(target.resource, [object], object.metadata.resourceVersion ?? "", new Date(), true, includeObject(q)) : object);
        }
        return list(target, q, listOptionsOf(q), request, response);
      }
      case "POST": {
        const body = asObj(parseBody(await requestBody(request), contentType)) as KubeObject;
        if (target.subresource === "binding" && target.name) {
          const node = String(asObj(asObj(body).target).name ?? "");
          if (!node) throw badRequest("binding target name is required");
          await cluster.bind(target.namespace ?? "default", target.name, node, body.metadata?.uid);
          return sendJson(response, 201, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 });
        }
        if (target.name) throw methodNotAllowed();
        checkBodyKind(target.resource, body);
        const ns = target.namespace;
        if (ns && body.metadata?.namespace && body.metadata.namespace !== ns) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
        const object = { ...body, apiVersion: body.apiVersion ?? apiVersion, kind: body.kind ?? target.resource.kind, metadata: { ...asObj(body.metadata), ...(ns ? { namespace: ns } : {}) } } as KubeObject;
        return sendJson(response, 201, await cluster.create(object, { dryRun, ...validation("Create") }));
      }
      case "PUT": {
        if (!target.name) throw methodNotAllowed();
        const body = asObj(parseBody(await requestBody(request), contentType)) as KubeObject;
        if (!target.subresource) checkBodyKind(target.resource, body);
        const object = { ...body, metadata: { ...asObj(body.metadata), name: body.metadata?.name ?? target.name, ...(target.namespace ? { namespace: target.namespace } : {}) } } as KubeObject;
        if (object.metadata.name !== target.name) throw badRequest(`the name of the object (${object.metadata.name ?? ""}) does not match the name on the URL (${target.name})`);
        return sendJson(response, 200, await cluster.update(object, { ...status, dryRun, ...validation("Update") }));
      }
      case "PATCH": {
        if (!target.name) throw methodNotAllowed();
        const type = patchTypeOf(contentType);
        // Custom resources have no strategic merge (no Go struct to read patch strategies from).
        if (type === "strategic" && target.resource.crd) throw new ApiError(415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
        const patch = parseBody(await requestBody(request), type === "apply" ? "yaml" : "json");
        // An apply that creates answers 201 Created.
        const created = type === "apply" && !(await cluster.find(typeRef, target.namespace, target.name));
        return sendJson(response, created ? 201 : 200, await cluster.patch(typeRef, target.namespace, target.name, patch, type, { ...status, dryRun, ...validation("Patch") }));
      }
      case "DELETE": {
        const text = await requestBody(request);
        const body = asObj(parseBody(text, contentType));
        const grace = q.has("gracePeriodSeconds") ? queryInt(q, "gracePeriodSeconds") : body.gracePeriodSeconds;
        // orphanDependents (deprecated) in the query or the body: true is Orphan.
        const orphan = q.has("orphanDependents") ? queryBool(q, "orphanDependents") : body.orphanDependents === true;
        const givenPolicy = q.get("propagationPolicy") ?? (typeof body.propagationPolicy === "string" ? body.propagationPolicy : undefined);
        checkDeleteOptions(givenPolicy, q.has("orphanDependents") || typeof body.orphanDependents === "boolean");
        const policy = (givenPolicy ?? (orphan ? "Orphan" : undefined)) as DeleteOptions["propagationPolicy"];
        const options = {
          ...(policy ? { propagationPolicy: policy } : {}),
          ...(grace !== undefined && grace !== null ? { gracePeriodSeconds: Number(grace) } : {}),
          ...(body.preconditions ? { preconditions: asObj(body.preconditions) as DeleteOptions["preconditions"] } : {}),
          dryRun: dryRun || (Array.isArray(body.dryRun) && body.dryRun.includes("All")),
        };
        if (target.name) return sendJson(response, 200, deleted(target.resource, await cluster.delete(typeRef, target.namespace, target.name, options)));
        // deletecollection answers the list of what it deleted (or marked for deletion), as kube-apiserver's.
        const victims = sortedByKey(cluster.select(target.resource, { ...(target.namespace ? { namespace: target.namespace } : {}), ...selectors(q) }));
        const gone: KubeObject[] = [];
        for (const victim of victims) {
          const result = await cluster.delete(typeRef, victim.object.metadata.namespace, victim.object.metadata.name ?? "", options).catch((error: unknown) => {
            if (!(error instanceof ApiError && error.code === 404)) throw error;
            return undefined;
          });
          if (result) gone.push(result);
        }
        const items = gone.map((o) => listItem(target.resource, o));
        return sendJson(response, 200, { kind: target.resource.listKind, apiVersion, metadata: { resourceVersion: String(cluster.store.resourceVersion) }, items });
      }
      default:
        throw methodNotAllowed();
    }
  }

  async function scale(target: Target, typeRef: { apiVersion: string; kind: string }, method: string, contentType: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const name = target.name ?? "";
    const current = toScale(await cluster.get(typeRef, target.namespace, name));
    if (method === "GET") return sendJson(response, 200, current);
    if (method !== "PUT" && method !== "PATCH") throw methodNotAllowed();
    const body = parseBody(await requestBody(request), method === "PUT" ? contentType : "json");
    const wanted = method === "PUT" ? asObj(body) : patchScale(current, body, patchTypeOf(contentType));
    const precondition = asObj(wanted.metadata).resourceVersion;
    const patch = { spec: { replicas: requestedReplicas(wanted) }, ...(method === "PUT" && typeof precondition === "string" ? { metadata: { resourceVersion: precondition } } : {}) };
    sendJson(response, 200, toScale(await cluster.patch(typeRef, target.namespace, name, patch, "merge")));
  }

  /** A CRD version's scale subresource paths, or undefined when it declares none. */
  async function customScalePaths(resource: ResourceType, version: string): Promise<ScalePaths | undefined> {
    const crd = resource.crd ? await cluster.find({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" }, undefined, resource.crd.crdName) : undefined;
    const versions = asObj((crd as Record<string, unknown> | undefined)?.spec).versions;
    const served = (Array.isArray(versions) ? versions : []).map(asObj).find((v) => v.name === version);
    const scale = asObj(asObj(served?.subresources).scale);
    if (typeof scale.specReplicasPath !== "string" || typeof scale.statusReplicasPath !== "string") return undefined;
    return { spec: scale.specReplicasPath, status: scale.statusReplicasPath, ...(typeof scale.labelSelectorPath === "string" ? { selector: scale.labelSelectorPath } : {}) };
  }

  async function customScale(target: Target, typeRef: { apiVersion: string; kind: string }, paths: ScalePaths, method: string, contentType: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const name = target.name ?? "";
    const current = toCustomScale(await cluster.get(typeRef, target.namespace, name), paths);
    if (method === "GET") return sendJson(response, 200, current);
    if (method !== "PUT" && method !== "PATCH") throw methodNotAllowed();
    const body = parseBody(await requestBody(request), method === "PUT" ? contentType : "json");
    const wanted = method === "PUT" ? asObj(body) : patchScale(current, body, patchTypeOf(contentType));
    sendJson(response, 200, toCustomScale(await cluster.patch(typeRef, target.namespace, name, patchAt(paths.spec, requestedReplicas(wanted)), "merge"), paths));
  }

  function selectors(q: URLSearchParams): { labelSelector?: string; fieldSelector?: string } {
    return { ...(q.get("labelSelector") ? { labelSelector: q.get("labelSelector") ?? "" } : {}), ...(q.get("fieldSelector") ? { fieldSelector: q.get("fieldSelector") ?? "" } : {}) };
  }

  function list(target: Target, q: URLSearchParams, options: ListOptions, request: IncomingMessage, response: ServerResponse): void {
    // An exact resourceVersion compacted away is gone (one not compacted is answered with the current state: the sim keeps no snapshots).
    checkResourceVersion(options.resourceVersion, "list");
    if (options.resourceVersionMatch === "Exact" && Number(options.resourceVersion) < cluster.store.history.compactedThrough) throw listTooOld();
    const selected = sortedByKey(cluster.select(target.resource, { ...(target.namespace ? { namespace: target.namespace } : {}), ...selectors(q) }));
    const page = paginate(selected, (s) => `${s.object.metadata.namespace ?? ""}/${s.object.metadata.name ?? ""}`, { limit: options.limit > 0 ? options.limit : undefined, continueToken: options.continue || null }, cluster.store.resourceVersion, cluster.store.history.compactedThrough);
    // remainingItemCount only when no selector filtered the list (it would be a guess); a custom resource's list always says `continue`.
    const filtered = Boolean(q.get("labelSelector") || q.get("fieldSelector"));
    const metadata = {
      ...(target.resource.crd && !page.continueToken ? { continue: "" } : {}),
      resourceVersion: page.resourceVersion,
      ...(page.continueToken ? { continue: page.continueToken, ...(filtered ? {} : { remainingItemCount: page.remaining }) } : {}),
    };
    if (wantsTable(request.headers.accept)) {
      const table = toTable(target.resource, page.items.map((s) => s.object), page.resourceVersion, new Date(), true, includeObject(q));
      return sendJson(response, 200, { ...table, metadata });
    }
    const listKind = target.resource.listKind;
    const apiVersion = apiVersionOf(target.resource.group, target.version);
    const items = page.items.map((s) => listItemJson(target.resource, s.json)).join(",");
    sendJson(response, 200, `{"kind":"${listKind}","apiVersion":"${apiVersion}","metadata":${JSON.stringify(metadata)},"items":[${items}]}`);
  }

  function watch(target: Target, q: URLSearchParams, listOptions: ListOptions, request: IncomingMessage, response: ServerResponse): void {
    checkResourceVersion(listOptions.resourceVersion, "watch");
    let labels, fields;
    try {
      labels = parseLabelSelector(q.get("labelSelector") ?? undefined);
      fields = parseFieldSelector(q.get("fieldSelector") ?? undefined, target.resource.fieldLabels);
    } catch (error) {
      if (error instanceof SelectorError) throw badRequest(error.message);
      throw error;
    }
    const timeout = listOptions.timeoutSeconds;
    serveWatch(
      cluster,
      {
        resource: target.resource,
        namespace: target.resource.namespaced ? target.namespace : undefined,
        name: target.name,
        labels,
        fields,
        resourceVersion: listOptions.resourceVersion,
        bookmarks: listOptions.allowWatchBookmarks,
        sendInitialEvents: listOptions.sendInitialEvents,
        resourceVersionMatch: listOptions.resourceVersionMatch || undefined,
        timeoutSeconds: timeout || undefined,
        table: wantsTable(request.headers.accept) ? includeObject(q) : false,
        bookmarkIntervalMs: options.bookmarkIntervalMs ?? 10_000,
      },
      response,
      (stop) => {
        watches.add(stop);
        response.on("close", () => watches.delete(stop));
      },
      options.faults,
    );
  }

  // Only a pod's exec/attach/portforward upgrade (Node >= 24.9 asks; older Nodes give every upgrade to podStreamUpgrades, which refuses the rest).
  const limits = options.connections ?? SIM_CONNECTION_LIMITS;
  const server: Server = createServer({ ...serverLimits(limits), shouldUpgradeCallback: (request) => podStreamTarget(URL.parse(request.url ?? "/", "http://sim")?.pathname ?? "") !== undefined }, (request, response) => {
    handle(request, response).catch((error: unknown) => {
      const apiError = error instanceof ApiError ? error : new ApiError(500, "InternalError", `Internal error occurred: ${(error as Error).message}`);
      if (!(error instanceof ApiError)) log("error", "request failed", { error: String(error), stack: (error as Error).stack });
      if (response.headersSent) return response.end();
      sendJson(response, apiError.code, apiError.toStatus());
    });
  });
  const podStreams = podStreamUpgrades(cluster);
  server.on("upgrade", podStreams.upgrade);
  capConnections(server, limits);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  options.faults?.attach({
    endWatches(gone: boolean): number {
      const open = [...watches];
      for (const stop of open) stop(gone);
      return open.length;
    },
  });
  return {
    url: baseUrl,
    port,
    closeWatches(): number {
      const open = [...watches];
      for (const stop of open) stop();
      return open.length;
    },
    async close(): Promise<void> {
      for (const stop of watches) stop();
      podStreams.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
