import { children, decodeOid, DerNode, expectUniversal, Tag } from './der.reader';

export interface AlgorithmIdentifier {
  readonly oid: string;
  /** Parameters as sent; absent when omitted. NULL parameters are kept as a node. */
  readonly parameters?: DerNode;
}

export function parseAlgorithmIdentifier(node: DerNode | undefined): AlgorithmIdentifier {
  const seq = children(expectUniversal(node, Tag.SEQUENCE, 'AlgorithmIdentifier'));
  return { oid: decodeOid(seq[0]), parameters: seq[1] };
}
