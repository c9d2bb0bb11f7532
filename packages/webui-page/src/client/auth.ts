// The Key dialog (API key kept in storage, sent as X-API-Key) and the sign-in form
// (POST /auth/login; the server sets the session cookie) with the sign-out control.
import { type Api, ApiError } from "./api.js";
import { plainMessage } from "./messages.js";
import { byId } from "./dom.js";
import type { PageStorage } from "./storage.js";

export interface AuthEvents {
  keySaved(): void;
  signedIn(): void;
  signedOut(): void;
}

export class Auth {
  private readonly keyDialog = byId<HTMLDialogElement>("key-dialog");
  private readonly keyInput = byId<HTMLInputElement>("key-input");
  private readonly signInDialog = byId<HTMLDialogElement>("signin-dialog");
  private readonly signInError = byId("signin-error");
  private readonly userLabel = byId("user");
  private readonly signOutBtn = byId<HTMLButtonElement>("sign-out");

  constructor(
    private readonly api: Api,
    private readonly storage: PageStorage,
    private readonly on: AuthEvents,
  ) {
    byId<HTMLFormElement>("key-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const key = this.keyInput.value.trim();
      this.storage.set("apiKey", key || null);
      this.keyInput.value = "";
      this.keyDialog.close();
      this.on.keySaved();
    });
    byId("key-cancel").addEventListener("click", () => this.keyDialog.close());
    byId("key-forget").addEventListener("click", () => {
      this.storage.set("apiKey", null);
      this.keyInput.value = "";
      this.keyDialog.close();
    });
    // The sign-in form cannot be dismissed: everything behind it needs a session.
    this.signInDialog.addEventListener("cancel", (e) => e.preventDefault());
    byId<HTMLFormElement>("signin-form").addEventListener("submit", (e) => {
      e.preventDefault();
      void this.signIn();
    });
    this.signOutBtn.addEventListener("click", () => void this.signOut());
  }

  promptKey(reason: string): void {
    byId("key-reason").textContent = reason;
    if (!this.keyDialog.open) {
      if (this.signInDialog.open) this.signInDialog.close();
      this.keyDialog.showModal();
    }
    this.keyInput.focus();
  }

  promptSignIn(): void {
    this.showUser(null);
    if (this.keyDialog.open) return; // The key comes first; sign-in is asked for after it.
    if (!this.signInDialog.open) this.signInDialog.showModal();
    byId("signin-user").focus();
  }

  showUser(name: string | null): void {
    this.userLabel.textContent = name ?? "";
    this.userLabel.hidden = name === null;
    this.signOutBtn.hidden = name === null;
  }

  private async signIn(): Promise<void> {
    const username = byId<HTMLInputElement>("signin-user").value.trim();
    const pass = byId<HTMLInputElement>("signin-pass");
    this.signInError.textContent = "";
    try {
      await this.api.post("/auth/login", { username, password: pass.value });
    } catch (err) {
      if (err instanceof ApiError && err.code === "api_key_required") return;
      // A refused login is a 401 (the server's code and wording may vary); say it the same way always.
      this.signInError.textContent =
        !(err instanceof ApiError) || err.status === 0
          ? "Could not reach the chat service."
          : err.status === 401
            ? "Wrong username or password."
            : plainMessage(err.code, err.status);
      return;
    } finally {
      pass.value = "";
    }
    this.signInDialog.close();
    this.on.signedIn();
  }

  private async signOut(): Promise<void> {
    try {
      await this.api.post("/auth/logout", {});
    } catch {
      // Signed out locally either way; the session expires on the server.
    }
    this.showUser(null);
    this.on.signedOut();
    this.promptSignIn();
  }
}
