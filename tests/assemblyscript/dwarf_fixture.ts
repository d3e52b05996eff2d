// A program shaped like WARPO's heap-analyzer fixture (docs/heap.md, "Fixtures"): classes with
// inheritance, a depth-4 binary tree held by a global, a linked list, arrays, maps and sets of
// references, pinned objects, objects held only by locals, and garbage. It takes one heap dump.
//
// Every structure is built in its own function and handed back, so that when `main` takes the
// dump the shadow stack holds exactly the locals of `main` and no stale pointer into the middle
// of a structure. tests/heap_assemblyscript.rs derives its expectations from this file: change
// them together.

import { dumpHeap } from "./memory_dump";

class Vector2 {
  x: f32;
  y: f32;
  constructor(x: f32, y: f32) {
    this.x = x;
    this.y = y;
  }
}

class Item {
  name: string;
  weight: i32;
  constructor(name: string, weight: i32) {
    this.name = name;
    this.weight = weight;
  }
}

class Entity {
  id: i32;
  position: Vector2;
  constructor(id: i32, x: f32, y: f32) {
    this.id = id;
    this.position = new Vector2(x, y);
  }
}

class Character extends Entity {
  name: string;
  hp: i32;
  constructor(id: i32, name: string, hp: i32) {
    super(id, <f32>id, <f32>(id * 2));
    this.name = name;
    this.hp = hp;
  }
}

// Fields, flattened: id@0, position@4, name@8, hp@12, inventory@16, score@20 (payload 24).
class Player extends Character {
  inventory: Array<Item>;
  score: u32;
  constructor(id: i32, name: string) {
    super(id, name, 100);
    this.inventory = new Array<Item>();
    this.score = 0;
  }
  addItem(item: Item): void {
    this.inventory.push(item);
  }
}

class NPC extends Character {
  dialogue: string;
  constructor(id: i32, name: string, dialogue: string) {
    super(id, name, 50);
    this.dialogue = dialogue;
  }
}

class TreeNode {
  value: i32;
  left: TreeNode | null = null;
  right: TreeNode | null = null;
  constructor(value: i32) {
    this.value = value;
  }
}

class ListNode {
  data: string;
  next: ListNode | null = null;
  constructor(data: string) {
    this.data = data;
  }
}

// Held by nothing but the runtime's pin list.
class PinnedBox {
  value: i32;
  constructor(value: i32) {
    this.value = value;
  }
}

// Allocated and dropped before the dump: must not be live.
class Garbage {
  value: i32;
  constructor(value: i32) {
    this.value = value;
  }
}

// Globals (roots of kind "global" once the runner serialises the mutable i32 globals).
let globalTree: TreeNode | null = null;
let globalPlayer: Player | null = null;
let playersByName: Map<string, Player> | null = null;
let itemSet: Set<Item> | null = null;
let itemWeights: Map<Item, f64> | null = null;
let matrix: Array<Array<i32>> | null = null;
let corners: StaticArray<Vector2> | null = null;
let greeting: string | null = null;
let pinnedBuffer: ArrayBuffer | null = null;

function buildTree(depth: i32, value: i32): TreeNode {
  const node = new TreeNode(value);
  if (depth > 0) {
    node.left = buildTree(depth - 1, value * 2);
    node.right = buildTree(depth - 1, value * 2 + 1);
  }
  return node;
}

function buildList(length: i32): ListNode {
  const head = new ListNode("node 0");
  let tail = head;
  for (let i = 1; i < length; i++) {
    const next = new ListNode("node n");
    tail.next = next;
    tail = next;
  }
  return head;
}

function buildPlayers(): void {
  const hero = new Player(1, "hero");
  hero.addItem(new Item("sword", 10));
  hero.addItem(new Item("shield", 15));
  hero.addItem(new Item("potion", 1));
  const sidekick = new Player(2, "sidekick");
  sidekick.addItem(new Item("bow", 5));
  sidekick.addItem(new Item("arrow", 1));
  const byName = new Map<string, Player>();
  byName.set("hero", hero);
  byName.set("sidekick", sidekick);
  globalPlayer = hero;
  playersByName = byName;
}

function buildNpcs(): Array<Character> {
  const characters = new Array<Character>();
  characters.push(new NPC(10, "smith", "Need a blade?"));
  characters.push(new NPC(11, "guard", "Halt!"));
  characters.push(new NPC(12, "bard", "La la la"));
  return characters;
}

function buildCollections(): void {
  const set = new Set<Item>();
  set.add(new Item("gem", 1));
  set.add(new Item("ring", 1));
  set.add(new Item("coin", 1));
  itemSet = set;

  // 8-byte values: the runtime's entry stride is 24, which only the entry class's byte_size
  // gives (without it the analyzer would step 20 bytes and lose the second and third key).
  const weights = new Map<Item, f64>();
  weights.set(new Item("feather", 0), 0.5);
  weights.set(new Item("stone", 3), 3.25);
  weights.set(new Item("anvil", 90), 90.0);
  itemWeights = weights;

  const rows = new Array<Array<i32>>();
  for (let r = 0; r < 4; r++) {
    const row = new Array<i32>();
    for (let c = 0; c < 4; c++) row.push(r * 4 + c);
    rows.push(row);
  }
  matrix = rows;

  const pair = new StaticArray<Vector2>(2);
  pair[0] = new Vector2(0, 0);
  pair[1] = new Vector2(1, 1);
  corners = pair;
}

function buildGreeting(who: string): void {
  greeting = "Hello, " + who + "!";
}

function pinObjects(): void {
  const buffer = new ArrayBuffer(128);
  __pin(changetype<usize>(buffer));
  pinnedBuffer = buffer;
  __pin(changetype<usize>(new PinnedBox(7)));
}

function makeGarbage(): i32 {
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += new Garbage(i).value;
  return sum;
}

function newBytes(): Uint8Array {
  const bytes = new Uint8Array(64);
  bytes[0] = 1;
  return bytes;
}

function touch(list: ListNode, characters: Array<Character>, bytes: Uint8Array): i32 {
  return list.data.length + characters.length + bytes.length;
}

export function main(): i32 {
  globalTree = buildTree(4, 1);
  buildPlayers();
  buildCollections();
  buildGreeting("world");
  pinObjects();
  makeGarbage();
  // Held only by locals of this function (shadow-stack roots).
  const list = buildList(5);
  const characters = buildNpcs();
  const bytes = newBytes();
  dumpHeap("dwarf_fixture");
  return touch(list, characters, bytes);
}
