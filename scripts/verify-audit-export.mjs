#!/usr/bin/env node
// Checks an audit export (GET /v1/audit/export, npm run cli -- audit export) offline, against the
// service's published public key (docs/audit.md §6). Node only, nothing of the service: node:crypto,
// node:fs, node:readline, and the `canonicalize` package (RFC 8785 canonical JSON, the same package the
// service hashes with; installed with the repository's dependencies, or `npm install canonicalize`).
//
//   node scripts/verify-audit-export.mjs export.jsonl public-key.pem
//
// PUBLIC-KEY.pem: a key of the service the auditor trusts (kept from an earlier audit, or published by
// the merchant). A head signed by a later key is accepted when the export's key succession statements
// lead from this key to that one, each signed by its predecessor; a head by any other key is refused.
//
// Prints `OK …` with the counts (exit code 0), or `FAIL line N (event evt_…): what` at the first
// problem (exit code 1). Reads the file line by line: memory stays flat however long the export.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import canonicalize from 'canonicalize';

const GENESIS = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const hex = (s) => Buffer.from(s, 'hex');
const leafHash = (leafHex) => sha256(Buffer.from([0]), hex(leafHex)).toString('hex');
const nodeHash = (l, r) => sha256(Buffer.from([1]), hex(l), hex(r)).toString('hex');
const chainHash = (prev, eventHash) => sha256(hex(prev), hex(eventHash)).toString('hex');

/** The root an RFC 6962 audit path leads to from leaf `index` of a tree of `size` (RFC 9162 §2.1.3.2), or null. */
function rootFromPath(leafHex, index, size, path) {
  if (!(Number.isInteger(index) && Number.isInteger(size) && index >= 0 && index < size) || !Array.isArray(path)) return null;
  let fn = index;
  let sn = size - 1;
  let r = leafHash(leafHex);
  for (const p of path) {
    if (sn === 0 || typeof p !== 'string' || !HEX64.test(p)) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn >>= 1;
          sn >>= 1;
        }
      }
    } else r = nodeHash(r, p);
    fn >>= 1;
    sn >>= 1;
  }
  return sn === 0 ? r : null;
}

/** The RFC 6962 Merkle tree hash of leaves given one by one: the perfect subtrees of the binary decomposition. */
class StreamingRoot {
  stack = []; // [leaves, hash], sizes strictly decreasing powers of two
  size = 0;
  push(leafHex) {
    let node = [1, leafHash(leafHex)];
    while (this.stack.length && this.stack[this.stack.length - 1][0] === node[0]) {
      const [n, h] = this.stack.pop();
      node = [n * 2, nodeHash(h, node[1])];
    }
    this.stack.push(node);
    this.size += 1;
  }
  root() {
    if (this.stack.length === 0) return sha256().toString('hex');
    let r = this.stack[this.stack.length - 1][1];
    for (let i = this.stack.length - 2; i >= 0; i -= 1) r = nodeHash(this.stack[i][1], r);
    return r;
  }
}

/** A public key's id: the first 16 hex digits of the SHA-256 of its raw 32 bytes. */
const keyId = (key) => sha256(Buffer.from(key.export({ format: 'jwk' }).x, 'base64url')).toString('hex').slice(0, 16);

/**
 * The keys reachable from `trusted` through key succession statements (docs/audit.md §3): a statement
 * { type: "audit_key_succession", previous_key_id, key_id, public_key_raw, valid_from } signed by a key
 * already trusted, whose new raw key hashes to its key_id, makes that key trusted too.
 */
function trustedKeyring(trusted, successions) {
  const ring = new Map([[keyId(trusted), trusted]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of successions) {
      if (!s || typeof s !== 'object' || ring.has(s.key_id) || !ring.has(s.previous_key_id)) continue;
      try {
        const next = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: String(s.public_key_raw) }, format: 'jwk' });
        if (keyId(next) !== s.key_id) continue;
        const { previous_key_id, key_id, public_key_raw, valid_from } = s;
        const bytes = Buffer.from(canonicalize({ type: 'audit_key_succession', previous_key_id, key_id, public_key_raw, valid_from }), 'utf8');
        if (!verify(null, bytes, ring.get(previous_key_id), Buffer.from(String(s.signature), 'base64'))) continue;
        ring.set(key_id, next);
        grew = true;
      } catch {
        continue;
      }
    }
  }
  return ring;
}

class Failure extends Error {
  constructor(line, eventId, what) {
    super(what);
    this.line = line;
    this.eventId = eventId;
  }
}

async function verifyExport(file, publicKeyPem) {
  let publicKey;
  try {
    publicKey = createPublicKey(publicKeyPem);
  } catch (error) {
    throw new Failure(0, null, `the public key file is not a PEM public key (${error.message})`);
  }
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  let header = null;
  let end = null;
  let events = 0;
  let last = null; // the previous event line's chain entry
  const tree = new StreamingRoot(); // chain tie
  for await (const text of lines) {
    n += 1;
    if (text === '') throw new Failure(n, null, 'an empty line');
    if (end) throw new Failure(n, null, 'a line after the signed head, which must be last');
    let line;
    try {
      line = JSON.parse(text);
    } catch {
      throw new Failure(n, null, 'not a JSON line');
    }
    if (n === 1) {
      if (line.kind !== 'header' || line.format !== 'audit-export') throw new Failure(n, null, 'the first line is not an audit export header');
      if (line.version !== 1) throw new Failure(n, null, `format version ${line.version}: this verifier reads version 1`);
      if (line.tie !== 'chain' && line.tie !== 'merkle') throw new Failure(n, null, `unknown tie ${line.tie}`);
      if (!Number.isInteger(line.tree_size) || !HEX64.test(String(line.merkle_root))) throw new Failure(n, null, 'the header has no tree_size and merkle_root');
      header = line;
      continue;
    }
    if (line.kind === 'error') throw new Failure(n, null, `the export was cut short by the service: ${line.message}`);
    if (line.kind === 'signed_head') {
      end = line;
      continue;
    }
    if (line.kind !== 'event' || !line.event || !line.chain) throw new Failure(n, null, 'neither an event nor the signed head');
    const { event, chain } = line;
    const id = typeof event.id === 'string' ? event.id : null;
    const account = event.metadata && typeof event.metadata.account_id === 'string' && event.metadata.account_id ? event.metadata.account_id : '_platform';
    if (account !== header.account) throw new Failure(n, id, `the event belongs to ${account}, not to ${header.account}`);
    // 1. The event is what was hashed.
    const computed = sha256(Buffer.from(canonicalize(event), 'utf8')).toString('hex');
    if (computed !== chain.event_hash) throw new Failure(n, id, `the event does not match its hash (altered): computed ${computed}, the chain says ${chain.event_hash}`);
    // 2. Its chain entry links to itself and to the entry before it, where that one is in the file.
    if (!Number.isInteger(chain.seq) || chain.seq < 0) throw new Failure(n, id, 'the chain entry has no seq');
    if (chain.chain_hash !== chainHash(chain.prev, chain.event_hash)) throw new Failure(n, id, 'chain_hash is not SHA-256(prev ‖ event_hash)');
    if (chain.seq === 0 && chain.prev !== GENESIS) throw new Failure(n, id, 'the first entry of the chain does not start from 64 zeros');
    if (last && chain.seq <= last.seq) throw new Failure(n, id, `entry ${chain.seq} after entry ${last.seq}: out of order or repeated`);
    if (last && chain.seq === last.seq + 1 && chain.prev !== last.chain_hash) throw new Failure(n, id, `the link to entry ${last.seq} is broken (prev is not its chain_hash)`);
    if (header.tie === 'chain') {
      // The whole chain: every entry from 0, none missing.
      const expected = last ? last.seq + 1 : 0;
      if (chain.seq !== expected) throw new Failure(n, id, `entry ${expected} is missing (the next line is entry ${chain.seq}): a line was removed`);
      tree.push(chain.event_hash);
    } else {
      // 3. A subset: its inclusion proof against the tree the head signs.
      const proof = line.proof;
      if (!proof || proof.leaf_index !== chain.seq || proof.tree_size !== header.tree_size) throw new Failure(n, id, 'no inclusion proof for this entry in the signed tree');
      const root = rootFromPath(chain.event_hash, proof.leaf_index, proof.tree_size, proof.audit_path);
      // Against the root the header announces (the signed head at the end must have it).
      if (root !== header.merkle_root) throw new Failure(n, id, 'the inclusion proof does not lead to the signed tree’s root');
    }
    last = chain;
    events += 1;
  }
  if (!header) throw new Failure(n, null, 'the file is empty');
  if (!end) throw new Failure(n, null, 'no signed head at the end: the export is incomplete');
  // 4. The signed head: signed by the key, for this account, and the events tied to it.
  const head = end.signed_head ?? {};
  const { account, size, chain_hash, merkle_root, signed_at, key_id, signature } = head;
  const body = Buffer.from(canonicalize({ account, size, chain_hash, merkle_root, signed_at, key_id }), 'utf8');
  // The keys trusted: the one given, and each successor a trusted key named in a statement it signed.
  const ring = trustedKeyring(publicKey, Array.isArray(end.key_successions) ? end.key_successions : []);
  const signer = ring.get(key_id);
  if (!signer) throw new Failure(n, null, `the signed head is signed by key ${key_id}, which is neither this public key (${keyId(publicKey)}) nor a successor it named in a signed succession statement: an unknown key`);
  let signed = false;
  try {
    signed = verify(null, body, signer, Buffer.from(String(signature), 'base64'));
  } catch {
    signed = false;
  }
  if (!signed) throw new Failure(n, null, `the signed head's signature does not verify with ${signer === publicKey ? 'this public key' : `key ${key_id} (a successor of this public key)`} (the head names key ${key_id}): wrong key, or the head was altered`);
  if (account !== header.account) throw new Failure(n, null, `the signed head is of ${account}, the export of ${header.account}`);
  if (size !== header.tree_size) throw new Failure(n, null, `the signed head has ${size} entries, the header ${header.tree_size}`);
  if (merkle_root !== header.merkle_root) throw new Failure(n, null, 'the signed head’s merkle_root is not the one the header announced (and the proofs were checked against)');
  if (end.events !== events) throw new Failure(n, null, `the export says ${end.events} events, the file holds ${events}: a line was removed or added`);
  if (header.tie === 'chain') {
    if (tree.size !== size) throw new Failure(n, null, `the signed head has ${size} entries, the file ${tree.size}: lines were removed at the end`);
    if ((last?.chain_hash ?? GENESIS) !== chain_hash) throw new Failure(n, null, 'the last entry’s chain_hash is not the signed head’s');
    if (tree.root() !== merkle_root) throw new Failure(n, null, 'the Merkle root of the events’ hashes is not the signed head’s');
  }
  return { header, head, events };
}

const [file, keyFile] = process.argv.slice(2);
if (!file || !keyFile) {
  console.error('usage: node scripts/verify-audit-export.mjs EXPORT.jsonl PUBLIC-KEY.pem');
  process.exit(2);
}
try {
  const { header, head, events } = await verifyExport(file, readFileSync(keyFile, 'utf8'));
  const what = header.scope.type === 'account' ? `account ${header.account}` : `${header.scope.type} ${header.scope.id} of ${header.account}`;
  const how = header.tie === 'chain' ? 'the whole chain, linked from the first entry to the signed head' : 'each event proven in the signed tree';
  console.log(`OK: ${events} events of ${what} match their hashes; ${how} (${head.size} entries, signed ${head.signed_at} with key ${head.key_id}${head.key_id === keyId(createPublicKey(readFileSync(keyFile, 'utf8'))) ? '' : `, a successor of the trusted key ${keyId(createPublicKey(readFileSync(keyFile, 'utf8')))}`})`);
} catch (error) {
  if (!(error instanceof Failure)) throw error;
  console.log(`FAIL line ${error.line}${error.eventId ? ` (event ${error.eventId})` : ''}: ${error.message}`);
  process.exit(1);
}
