// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title The USDC of local and test chains
/// @notice An ERC-20 of six decimals, as USDC is, whose owner mints: the sandbox's faucet on a chain
/// the operator runs (a local node, a private test chain). On a public testnet the platform uses
/// the issuer's own test token instead, and this contract is not deployed.
contract TestUsdc is ERC20, Ownable {
    constructor(address owner) ERC20("Test USD Coin", "USDC") Ownable(owner) {}

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
