// The hand-written table interfaces (src/platform/db/tables/*.ts, combined as `DB` in src/platform/db/schema.ts)
// against the migrated database: every table and column on both sides, each column's
// nullability, a rough type, and that a column Kysely lets an insert leave out has a default.
// The interfaces are read with the TypeScript compiler (the types Kysely sees, after
// `extends`, aliases and ColumnType/Generated), the database from information_schema. A
// migration that adds, drops or changes a column without the interfaces following fails here,
// on either engine.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import ts from 'typescript';
import { createTestDatabase, engineName, type TestDatabase } from '../helpers/db.ts';

/** Kysely's own bookkeeping, not part of DB. */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

type Kind = 'string' | 'number' | 'boolean' | 'Date' | 'array' | 'json';

/** What each PostgreSQL type reads back as, through our drivers (int8 parsed to number, numeric kept as text). */
const READS_AS: Record<string, readonly Kind[]> = {
  smallint: ['number'],
  integer: ['number'],
  bigint: ['number'],
  real: ['number'],
  'double precision': ['number'],
  numeric: ['string'],
  text: ['string'],
  'character varying': ['string'],
  character: ['string'],
  uuid: ['string'],
  boolean: ['boolean'],
  'timestamp with time zone': ['Date'],
  'timestamp without time zone': ['Date'],
  ARRAY: ['array'],
  jsonb: ['json', 'array', 'string', 'number', 'boolean'],
  json: ['json', 'array', 'string', 'number', 'boolean'],
};

interface Column {
  nullable: boolean;
  /** Kinds of the selected value, without null. */
  kinds: Kind[];
  /** An insert may leave it out. */
  optionalOnInsert: boolean;
}

interface DbColumn {
  nullable: boolean;
  dataType: string;
  hasDefault: boolean;
}

/** The `DB` interface as the compiler resolves it: table → column → what it reads and takes. */
function interfaceColumns(): Map<string, Map<string, Column>> {
  const schemaFile = join(process.cwd(), 'src', 'platform', 'db', 'schema.ts');
  const program = ts.createProgram([schemaFile], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(schemaFile)!;
  const declaration = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'DB');
  assert.ok(declaration, 'src/platform/db/schema.ts declares interface DB');
  const db = checker.getTypeAtLocation(declaration);

  const flatten = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types : [type]);
  const member = (type: ts.Type, name: string): ts.Type | undefined => {
    const symbol = type.getProperty(name);
    return symbol ? checker.getTypeOfSymbol(symbol) : undefined;
  };
  const kindOf = (type: ts.Type): Kind => {
    if (type.flags & ts.TypeFlags.StringLike) return 'string';
    if (type.flags & ts.TypeFlags.NumberLike) return 'number';
    if (type.flags & ts.TypeFlags.BooleanLike) return 'boolean';
    if (checker.isArrayType(type) || checker.isTupleType(type)) return 'array';
    if (type.getSymbol()?.getName() === 'Date') return 'Date';
    return 'json';
  };

  const tables = new Map<string, Map<string, Column>>();
  for (const table of checker.getPropertiesOfType(db)) {
    const columns = new Map<string, Column>();
    for (const column of checker.getPropertiesOfType(checker.getTypeOfSymbol(table))) {
      const type = checker.getTypeOfSymbol(column);
      // ColumnType<Select, Insert, Update> (and Generated<T>) carry their parts as __select__ and __insert__.
      const select = member(type, '__select__') ?? type;
      const insert = member(type, '__insert__') ?? type;
      const parts = flatten(select);
      const optional = (column.flags & ts.SymbolFlags.Optional) !== 0;
      const nullable = parts.some((t) => t.flags & ts.TypeFlags.Null);
      columns.set(column.getName(), {
        nullable,
        kinds: [...new Set(parts.filter((t) => !(t.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined))).map(kindOf))].sort(),
        // Kysely: a column whose insert type takes undefined or null may be left out.
        optionalOnInsert: optional || flatten(insert).some((t) => t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)),
      });
    }
    tables.set(table.getName(), columns);
  }
  return tables;
}

describe(`the table interfaces match the migrated schema (${engineName})`, () => {
  let testDb: TestDatabase;
  let database: Map<string, Map<string, DbColumn>>;
  let interfaces: Map<string, Map<string, Column>>;

  before(async () => {
    testDb = await createTestDatabase({ poolSize: 1 });
    const { rows } = await sql<{
      table_name: string;
      column_name: string;
      is_nullable: string;
      data_type: string;
      column_default: string | null;
      is_identity: string;
    }>`
      select c.table_name, c.column_name, c.is_nullable, c.data_type, c.column_default, c.is_identity
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
      order by c.table_name, c.ordinal_position`.execute(testDb.database.db);
    database = new Map();
    for (const row of rows) {
      if (MIGRATOR_TABLES.has(row.table_name)) continue;
      const columns = database.get(row.table_name) ?? new Map<string, DbColumn>();
      columns.set(row.column_name, {
        nullable: row.is_nullable === 'YES',
        dataType: row.data_type,
        hasDefault: row.column_default !== null || row.is_identity === 'YES',
      });
      database.set(row.table_name, columns);
    }
    interfaces = interfaceColumns();
  });
  after(() => testDb.close());

  test('the same tables', () => {
    assert.ok(database.size > 20, `only ${database.size} tables in the migrated database`);
    assert.deepEqual([...interfaces.keys()].sort(), [...database.keys()].sort());
  });

  test('the same columns in each table', () => {
    const drift: string[] = [];
    for (const [table, columns] of database) {
      const declared = interfaces.get(table);
      if (!declared) continue; // reported by the tables test
      for (const column of columns.keys())
        if (!declared.has(column)) drift.push(`${table}.${column}: in the database, not in the interface`);
      for (const column of declared.keys())
        if (!columns.has(column)) drift.push(`${table}.${column}: in the interface, not in the database`);
    }
    assert.deepEqual(drift, []);
  });

  test('each column with the same nullability, a type that reads back as declared, and a default where an insert may leave it out', () => {
    const drift: string[] = [];
    let compared = 0;
    for (const [table, columns] of database) {
      for (const [name, column] of columns) {
        const declared = interfaces.get(table)?.get(name);
        if (!declared) continue; // reported by the columns test
        compared++;
        const where = `${table}.${name}`;
        if (declared.nullable !== column.nullable) {
          drift.push(
            `${where}: ${column.nullable ? 'nullable' : 'not null'} in the database, ${declared.nullable ? 'nullable' : 'not null'} in the interface`,
          );
        }
        const reads = READS_AS[column.dataType];
        if (!reads) drift.push(`${where}: the check does not know the type ${column.dataType} (add it to READS_AS)`);
        else if (declared.kinds.length === 0 || declared.kinds.some((k) => !reads.includes(k))) {
          drift.push(
            `${where}: ${column.dataType} reads back as ${reads.join(' or ')}, the interface says ${declared.kinds.join(' | ') || 'nothing'}`,
          );
        }
        if (declared.optionalOnInsert && !column.nullable && !column.hasDefault) {
          drift.push(`${where}: an insert may leave it out (Generated or optional), but it is not null without a default`);
        }
      }
    }
    assert.ok(compared > 200, `only ${compared} columns compared`);
    assert.deepEqual(drift, []);
  });
});
