import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyResult } from '../../../src/authorities/outcome.ts';
import { interpretReply, parseEnvelope } from '../../../src/authorities/zra-vsdc/client.ts';
import { joinVsdcUrl } from '../../../src/authorities/url.ts';

describe('classifyResult', () => {
  test('reads the protocol table without an endpoint', () => {
    assert.equal(classifyResult('000'), 'ok');
    assert.equal(classifyResult('001'), 'empty');
    assert.equal(classifyResult('838'), 'unreachable');
    assert.equal(classifyResult('894'), 'unreachable');
    assert.equal(classifyResult('902'), 'already_installed');
    assert.equal(classifyResult('924'), 'duplicate');
    for (const code of ['910', '913', '930', '931', '932', '933', '934', '935', '999', '901', '834', '123']) {
      assert.equal(classifyResult(code), 'rejected', code);
    }
  });

  test('902 means "already installed" only on initialisation', () => {
    assert.equal(classifyResult('902', 'selectInitInfo'), 'already_installed');
    assert.equal(classifyResult('902', 'saveSales'), 'rejected');
    assert.equal(classifyResult('902', 'selectCodes'), 'rejected');
  });

  test('924 means "duplicate" only on saveSales', () => {
    assert.equal(classifyResult('924', 'saveSales'), 'duplicate');
    assert.equal(classifyResult('924', 'saveItem'), 'rejected');
  });

  test('001 means "empty" only on select endpoints', () => {
    for (const endpoint of ['selectCodes', 'selectItemsClass', 'selectInvoice', 'selectCustomer', 'selectImportItems'] as const) {
      assert.equal(classifyResult('001', endpoint), 'empty', endpoint);
    }
    assert.equal(classifyResult('001', 'saveSales'), 'rejected');
    assert.equal(classifyResult('001', 'selectInitInfo'), 'rejected');
  });

  test('838 and 894 are unreachable on every endpoint', () => {
    assert.equal(classifyResult('838', 'saveSales'), 'unreachable');
    assert.equal(classifyResult('894', 'selectInitInfo'), 'unreachable');
  });
});

describe('parseEnvelope', () => {
  test('needs a JSON object with a resultCd', () => {
    assert.equal(parseEnvelope('<html>404</html>'), null);
    assert.equal(parseEnvelope('[]'), null);
    assert.equal(parseEnvelope('{"status":400,"error":"Bad Request"}'), null);
    assert.equal(parseEnvelope(''), null);
    assert.deepEqual(parseEnvelope('{"resultCd":"000","resultMsg":"It is succeeded","resultDt":"20240101000000","data":null}'), {
      resultCd: '000',
      resultMsg: 'It is succeeded',
      resultDt: '20240101000000',
      data: null,
    });
  });

  test('reads a numeric resultCd as its 3-character code', () => {
    assert.equal(parseEnvelope('{"resultCd":0}')?.resultCd, '000');
    assert.equal(parseEnvelope('{"resultCd":1}')?.resultCd, '001');
    assert.equal(parseEnvelope('{"resultCd":924}')?.resultCd, '924');
  });
});

describe('interpretReply', () => {
  const env = (resultCd: string, data: unknown = null): string =>
    JSON.stringify({ resultCd, resultMsg: 'm', resultDt: '20240101000000', data });

  test('HTTP 5xx, HTML 404 and non-envelope bodies are unreachable', () => {
    assert.deepEqual(interpretReply('saveSales', 503, 'Service Unavailable').kind, 'unreachable');
    const html = interpretReply('selectCodes', 404, '<html>Not Found</html>');
    assert.equal(html.kind, 'unreachable');
    assert.equal(html.kind === 'unreachable' && html.reason, 'http_error');
    const plain = interpretReply('selectCodes', 200, '<html>Welcome to Tomcat</html>');
    assert.equal(plain.kind === 'unreachable' && plain.reason, 'not_an_envelope');
    assert.equal(interpretReply('selectCodes', 500, env('000')).kind, 'unreachable');
    assert.equal(html.kind === 'unreachable' && html.detail, 'HTTP 404: <html>Not Found</html>');
    // An empty body: no empty quote after the status.
    const empty = interpretReply('selectCodes', 404, ' \n');
    assert.equal(empty.kind === 'unreachable' && empty.detail, 'HTTP 404');
    const bare = interpretReply('selectCodes', 200, '');
    assert.equal(bare.kind === 'unreachable' && bare.detail, 'HTTP 200 without a VSDC envelope');
  });

  test('a bare HTTP 400 is a terminal rejection with code "400"', () => {
    const outcome = interpretReply('saveSales', 400, '{"status":400,"error":"Bad Request"}');
    assert.equal(outcome.kind, 'rejected');
    assert.equal(outcome.kind === 'rejected' && outcome.code, '400');
    assert.equal(interpretReply('saveSales', 400, '').kind, 'rejected');
  });

  test('an HTTP 400 carrying an envelope is read by its resultCd', () => {
    const outcome = interpretReply('saveSales', 400, env('910'));
    assert.equal(outcome.kind === 'rejected' && outcome.code, '910');
  });

  test('000 without a usable receipt is treated as no answer, so the retry reconciles', () => {
    const outcome = interpretReply('saveSales', 200, env('000', { rcptNo: 5 }));
    assert.equal(outcome.kind === 'unreachable' && outcome.reason, 'bad_success_body');
    assert.equal(interpretReply('selectInitInfo', 200, env('000', {})).kind, 'unreachable');
  });

  test('838 keeps its code on the unreachable outcome', () => {
    const outcome = interpretReply('saveSales', 200, env('838'));
    assert.deepEqual(outcome.kind === 'unreachable' && [outcome.reason, outcome.resultCd], ['authority_unreachable', '838']);
  });
});

describe('joinVsdcUrl', () => {
  test('joins with exactly one slash, with or without a context path', () => {
    assert.equal(joinVsdcUrl('http://h:8080', '/code/selectCodes'), 'http://h:8080/code/selectCodes');
    assert.equal(joinVsdcUrl('http://h:8080/', '/code/selectCodes'), 'http://h:8080/code/selectCodes');
    assert.equal(joinVsdcUrl('http://h:8080/zrasandboxvsdc', '/code/selectCodes'), 'http://h:8080/zrasandboxvsdc/code/selectCodes');
    assert.equal(joinVsdcUrl('http://h:8080/zrasandboxvsdc//', 'code/selectCodes'), 'http://h:8080/zrasandboxvsdc/code/selectCodes');
  });
});
