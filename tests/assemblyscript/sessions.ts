// A larger heap for the analysis without DWARF at scale (benches/heap.rs): 1,000 users in a
// Map by name, 40,000 sessions each owned by a user and kept in the user's Array, every fourth
// also in a global Array of recent sessions. Plain classes with inheritance (their visitors
// are traced), arrays and a map (their visitors run in the interpreter). One dump, after a
// full collection.

import { dumpHeap } from "./memory_dump";

class Entity {
  owner: Entity | null = null;
}

class Session extends Entity {
  id: i32;
  name: string;
  scratch: ArrayBuffer;
  constructor(id: i32, owner: Entity) {
    super();
    this.owner = owner;
    this.id = id;
    this.name = "session " + id.toString();
    this.scratch = new ArrayBuffer(16);
  }
}

class User extends Entity {
  name: string;
  sessions: Array<Session> = new Array<Session>();
  constructor(name: string) {
    super();
    this.name = name;
  }
}

const users = new Map<string, User>();
const recent = new Array<Session>();

export function main(): void {
  for (let u = 0; u < 1000; u++) {
    const name = "user " + u.toString();
    users.set(name, new User(name));
  }
  for (let i = 0; i < 40000; i++) {
    const user = users.get("user " + (i % 1000).toString());
    const session = new Session(i, user);
    user.sessions.push(session);
    if (i % 4 == 0) recent.push(session);
  }
  __collect();
  dumpHeap("after 40000 sessions");
}
