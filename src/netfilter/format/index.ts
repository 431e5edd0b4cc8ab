export {
  formatIptablesSave,
  formatIptablesSaveTable,
  SAVE_TABLE_ORDER,
  type FormatSaveOptions,
} from "./save.js";
export { formatIptablesRestore } from "./restore.js";
export { formatRuleBody, formatRuleSave } from "./rule.js";
