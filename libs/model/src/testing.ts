/** Helpers for tests only: `@stratagate/model/testing`. */
export {
  reply as fakeOpenAiReply,
  startFakeOpenAiServer,
  type FakeOpenAiServer,
  type RecordedRequest,
  type ScriptedReply,
} from './openai/fake-openai-server.ts';
export { graphSourceEventsOf } from './graph-source-events.ts';
