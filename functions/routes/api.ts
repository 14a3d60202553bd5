import { parseJson } from "../http/body.ts";
import { HttpError } from "../http/errors.ts";
import { ApiRequest, ApiResponse } from "../../protocol/index.ts";
import type { Registry } from "../registry.ts";

/** `POST /v1/api/:api`: an HTTP request the relay's front received, answered with a reply and actions. */
export function apiRoute(registry: Registry, name: string, body: Uint8Array): ApiResponse {
  const api = registry.api(name);
  if (!api) throw new HttpError(404, "unknown_api", `no API named ${name}`, "api");
  const request = parseJson(body, ApiRequest);
  const prefix = api.spec.pathPrefix;
  if (request.path !== prefix && !request.path.startsWith(`${prefix}/`)) {
    throw new HttpError(400, "invalid", `path ${request.path} is not under ${prefix}`, "path");
  }
  return ApiResponse.parse(api.handle(request));
}
