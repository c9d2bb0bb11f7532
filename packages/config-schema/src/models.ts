// The model pieces @agentsvc/agent-core needs, as their own entry: importing the package's index
// would load every schema, the project loader and yaml in the agent's copy of this package
// (a project's agent files load agent-core outside the bundled command), costing start-up time.
export { checkAgentModel } from "./schemas/model.js";
export {
  BEDROCK_API_KEY_VAR,
  isLanguageModelInstance,
  MODEL_PROVIDERS,
  type ModelProviderName,
  modelKeyVars,
  modelTarget,
  parseModelString,
} from "./model-providers.js";
