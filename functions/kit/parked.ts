/** Long-poll reads parked until a Durable Object's next write: the floor's, for a family's object (families import the kit, not `durable/`). */
export { ParkedReads } from "../../durable/parked.ts";
