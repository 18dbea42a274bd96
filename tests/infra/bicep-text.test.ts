import { parseBicep, propertyValues } from './bicep-text';

describe('the Bicep text reader used by the consistency check', () => {
  it('reads params with their decorators, vars, conditional resources and outputs', () => {
    const file = parseBicep(
      [
        "@description('How many')",
        '@minValue(1)',
        'param count int = 1',
        `var names = map(range(0, count), i => 'n\${i}')`,
        "resource st 'Microsoft.Storage/storageAccounts@2023-05-01' = if (count > 0) {",
        "  name: 'st'",
        '}',
        'output id string = st.id',
      ].join('\n'),
    );
    expect(file.params.get('count')).toEqual({
      type: 'int',
      decorators: ["@description('How many')", '@minValue(1)'],
    });
    expect(file.vars.get('names')).toBe(`map(range(0, count), i => 'n\${i}')`);
    expect(file.resources).toEqual([
      {
        symbol: 'st',
        type: 'Microsoft.Storage/storageAccounts',
        apiVersion: '2023-05-01',
        conditional: true,
        body: "{\n  name: 'st'\n}",
      },
    ]);
    expect(file.outputs.get('id')).toBe('st.id');
  });

  it('ignores braces and declarations inside comments and strings', () => {
    const file = parseBicep(
      [
        "// resource fake1 'Microsoft.Web/sites@2024-04-01' = {",
        "/* resource fake2 'Microsoft.Web/sites@2024-04-01' = {",
        '   } } */',
        "var text = 'a { brace // not a comment'",
        "resource site 'Microsoft.Web/sites@2024-04-01' = {",
        "  name: 'x' // trailing } comment",
        '}',
      ].join('\n'),
    );
    expect(file.resources.map((resource) => resource.symbol)).toEqual(['site']);
    expect(file.vars.get('text')).toBe("'a { brace // not a comment'");
  });

  it('refuses what it cannot count honestly: loops, relative child types and modules', () => {
    expect(() =>
      parseBicep("resource r 'Microsoft.Web/sites@2024-04-01' = [for i in range(0, 2): {\n}]"),
    ).toThrow(/is a loop/);
    expect(() => parseBicep("resource r 'containers@2023-05-01' = {\n}")).toThrow(/relative type/);
    expect(() => parseBicep("module m './m.bicep' = {\n}")).toThrow(/modules are not read/);
  });

  it('reports unbalanced brackets and unterminated strings with a position', () => {
    expect(() => parseBicep("resource r 'Microsoft.Web/sites@2024-04-01' = {\n  name: 'x'\n")).toThrow(
      /line 1: missing \}/,
    );
    expect(() => parseBicep("var a = 'open\n")).toThrow(/unterminated string/);
  });

  it('finds property values at any depth, whole when they span lines', () => {
    const body =
      "{\n  siteConfig: {\n    minTlsVersion: '1.2'\n    list: [\n      1\n    ]\n  }\n  scmMinTlsVersion: '1.0'\n}";
    expect(propertyValues(body, 'minTlsVersion')).toEqual(["'1.2'"]);
    expect(propertyValues(body, 'list')).toEqual(['[\n      1\n    ]']);
    expect(propertyValues(body, 'absent')).toEqual([]);
  });
});
