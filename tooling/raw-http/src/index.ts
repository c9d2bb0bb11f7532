export { type RawAnswer, type RawPostOptions, rawPost } from "./raw-post.js";
