/** How the versus-upstream bench prices a path's tallied DynamoDB calls at DynamoDB Local's measured floor. */
import { describe, expect, it } from 'vitest';
import { floorKindOf, pathFloorMs, type DynamoDbFloor, type FloorKind } from '../../bench/support/dynamodb-floor.js';

const kinds: FloorKind[] = [
  'GetItem large',
  'GetItem small',
  'Query 3 small',
  'PutItem large conditional',
  'PutItem small conditional',
  'UpdateItem small conditional',
  'TransactWriteItems 2 small',
];
const floor: DynamoDbFloor = {
  cpuMsPerCall: Object.fromEntries(kinds.map((kind, i) => [kind, i + 1])) as Record<FloorKind, number>,
  p50Ms: Object.fromEntries(kinds.map((kind) => [kind, 1])) as Record<FloorKind, number>,
};

describe('the DynamoDB floor of a path', () => {
  it('sizes host items as large and every other item as small', () => {
    expect(floorKindOf('api: GetItem ORG#INFRAENV#HOST HOST')).toBe('GetItem large');
    expect(floorKindOf('api: GetItem ORG#INFRAENV#HOST LIVENESS')).toBe('GetItem small');
    expect(floorKindOf('stream: PutItem ORG#INFRAENV#HOST HOST')).toBe('PutItem large conditional');
    expect(floorKindOf('runtime: Query ORG#CLUSTER')).toBe('Query 3 small');
    expect(floorKindOf('api: TransactWriteItems …')).toBe('TransactWriteItems 2 small');
    expect(floorKindOf('runtime: DescribeTable -')).toBeUndefined();
  });

  it('sums each kind of call per request times its floor, leaving out what is not priced', () => {
    // GetItem large = 1, Query = 3, UpdateItem = 6 CPU-ms per call in this made-up floor.
    const perRequest = {
      'api: GetItem ORG#INFRAENV#HOST HOST': 2,
      'api: Query ORG#CLUSTER': 0.5,
      'api: UpdateItem ORG#INFRAENV#HOST LIVENESS': 1,
      'runtime: DescribeTable -': 9,
    };
    expect(pathFloorMs(perRequest, floor)).toBeCloseTo(2 * 1 + 0.5 * 3 + 1 * 6);
  });
});
