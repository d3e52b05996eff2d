// A request handler that leaks on purpose, for the README's "find the leak" walkthrough.
//
// Every request gets a Session with a name and a 64-byte scratch buffer; the handler means the
// session to be garbage when the request ends, but it also appends an AuditEntry that points
// at the session to the global `auditLog`, which nothing ever trims: the leak. The program
// dumps its heap after 10 requests and after 50, collecting first so that only what is still
// reachable remains.

import { dumpHeap } from "./memory_dump";

// id@0, name@4, scratch@8: payload 12 bytes → shallow 32.
class Session {
  id: i32;
  name: string;
  scratch: ArrayBuffer;
  constructor(id: i32) {
    this.id = id;
    this.name = "session " + id.toString();
    this.scratch = new ArrayBuffer(64);
  }
}

// session@0, request@4: payload 8 bytes → shallow 32.
class AuditEntry {
  session: Session;
  request: i32;
  constructor(session: Session, request: i32) {
    this.session = session;
    this.request = request;
  }
}

const auditLog = new Array<AuditEntry>();

function handle(request: i32): void {
  const session = new Session(request);
  // ... the request's work with the session would go here ...
  auditLog.push(new AuditEntry(session, request)); // the leak: the log keeps every session
}

export function main(): void {
  for (let i = 0; i < 10; i++) handle(i);
  __collect();
  dumpHeap("after 10 requests");
  for (let i = 10; i < 50; i++) handle(i);
  __collect();
  dumpHeap("after 50 requests");
}
