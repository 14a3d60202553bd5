/** Generated at bundle time: the default export of every controller folder. */
declare module "edgeloop:controllers" {
  import type { Controller } from "./kit/controller.ts";
  const controllers: readonly Controller[];
  export default controllers;
}

/** Generated at bundle time: the Durable Object classes of every family's `durable.ts` (ADR 0012). */
declare module "edgeloop:durable-objects" {}
